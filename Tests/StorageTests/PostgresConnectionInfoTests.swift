import PostgresStorage
import Storage
import XCTest

/// Connection strings read by libpq, split into what goes on a command line and the password.
final class PostgresConnectionInfoTests: XCTestCase {
    func testTheURLsPasswordIsSetApartAndTheRestReadsBackTheSame() throws {
        let info = try PostgresConnectionInfo(parsing: "postgresql://pacenote:s%40cr3t%27x@db.example:6432/social?sslmode=require&application_name=it's")
        XCTAssertEqual(info.password, "s@cr3t'x", "percent-escapes decoded as libpq decodes them")
        XCTAssertFalse(info.withoutPassword.contains("cr3t"))
        let options = Dictionary(info.options.map { ($0.keyword, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(options["user"], "pacenote")
        XCTAssertEqual(options["host"], "db.example")
        XCTAssertEqual(options["port"], "6432")
        XCTAssertEqual(options["dbname"], "social")
        XCTAssertEqual(options["sslmode"], "require")
        // The key=value form, quotes escaped, is read back by libpq into the same options.
        XCTAssertEqual(try PostgresConnectionInfo(parsing: info.withoutPassword), try PostgresConnectionInfo(parsing: "postgresql://pacenote@db.example:6432/social?sslmode=require&application_name=it's"))
    }

    func testAPasswordGivenAsAParameterOrInKeyValueFormIsSetApartToo() throws {
        XCTAssertEqual(try PostgresConnectionInfo(parsing: "postgres://u@h/d?password=p%20w").password, "p w")
        let keyValue = try PostgresConnectionInfo(parsing: "host=a,b port=1,2 dbname=x password='q\\'z'")
        XCTAssertEqual(keyValue.password, "q'z")
        XCTAssertTrue(keyValue.withoutPassword.contains("host='a,b'"), keyValue.withoutPassword)
        XCTAssertNil(try PostgresConnectionInfo(parsing: "postgres://u@h/d").password)
    }

    func testWhatIsNotAConnectionStringIsRefusedWithLibpqsReason() {
        XCTAssertThrowsError(try PostgresConnectionInfo(parsing: "postgres://u@h/d?nonsense=1")) { error in
            XCTAssertTrue(String(describing: error).contains("nonsense"), "\(error)")
        }
    }
}
