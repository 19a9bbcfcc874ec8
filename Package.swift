// swift-tools-version:6.0
import PackageDescription

// Module layout and dependency direction: see docs/ARCHITECTURE.md.
// Storage <- Auth, CloudHooks <- VideoRegistry <- Community <- {Delivery, ParseImport, ParseREST, PublicWeb, SocialAPI} <- pacenote.
// Storage is the drivers' shared root and names no driver; the drivers (SQLiteStorage,
// PostgresStorage) and the schema (Schema, with PostgresSchema) depend on it, never the other
// way. Domain modules import Storage only; what opens or migrates a database names a driver
// or Schema (pacenote; SocialAPI, for its default SQLite opener and its migrations; the tests).
// Community is the domain (activities, feeds, notifications, moderation, search, account mail);
// Delivery sends what it queues (APNs, FCM, webhook, SMTP) and, with SignInProviders (which
// fetches sign-in providers' keys), the only module on libcurl;
// SocialAPI is the HTTP adapter and, with ParseREST (the Parse REST API over the same domain),
// PublicWeb (the server-rendered public pages over the same read stores; SocialAPI registers
// both) and the executable, the only module on HTTP (libmicrohttpd).
// JSON, Telemetry and Crypto are leaf utilities any module may use. CShims holds the static
// inline wrappers of the C that Swift cannot call, and links nothing itself.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    // Generic code crosses modules on the hot path (a store's page read, generic over the
    // presenter's `Selection`, is in Community; `RowReader` in Storage): without this, a
    // release build calls it unspecialized, and the home feed's first page served 21% fewer
    // requests than when the domain and the routes were one module (BENCHMARKS.md).
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

let package = Package(
    name: "Pacenote",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pacenote", targets: ["pacenote"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypt", pkgConfig: "libcrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // What Delivery's and SignInProviders' libcurl transfers share: the one curl_global_init,
        // the options every transfer sets, the answer's sink and its callbacks, and the CA bundle
        // with an operator's file.
        .target(name: "CurlSupport", dependencies: ["CCurl", "CShims"], swiftSettings: swiftSettings),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // libvips, with its fixed-argument wrappers in the target's own header (shim.h): its
        // headers need GLib's include paths, which only pkg-config gives, so they cannot go in
        // CShims below.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // This program's own vips_semaphore_down_timeout, which libvips's threadset calls instead
        // of its own: with libvips 8.14.1 to 8.15.3 (Debian 12 has 8.14.1) an idle worker thread
        // retiring races with a new task and can lose it or write into freed memory, so there no
        // thread retires (threadset_idle.c; bench/vips-stress shows the race).
        .target(name: "CVipsThreadset", dependencies: ["CVips"]),
        // Typed wrappers for C functions Swift cannot call (variadic ones, macros), one header and
        // one explicit submodule per library (`import CShims.Curl`, `CShims.MicroHTTPD`,
        // `CShims.SQLite`). All `static inline` and no dependency of its own: it links nothing,
        // so a module gets no library through it; the importing module depends on the library's
        // system-library target above, which links it. The headers are in Debian's default
        // include path.
        .target(name: "CShims"),
        // A pass-through SQLite VFS that writes a transaction's WAL frames with one pwrite.
        .target(name: "CSQLiteWAL", dependencies: ["CSQLite"]),

        // Leaf utilities.
        .target(name: "JSON", swiftSettings: swiftSettings),
        .target(name: "Telemetry", dependencies: ["JSON"], swiftSettings: swiftSettings),
        .target(name: "Crypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        // Profile pictures: decoding, checking and resizing with libvips.
        .target(name: "Imaging", dependencies: ["CVips", "CVipsThreadset"], swiftSettings: swiftSettings),

        // Storage and the domain.
        // Storage is the drivers' shared root and names no driver: the Database seam, SQL, Row,
        // RowReader (with RowCursor, the seam a driver reads its rows through), StorageError,
        // the connection pool, the migrator. Each driver is a module over it with its C library.
        .target(name: "Storage", dependencies: ["Telemetry"], swiftSettings: swiftSettings),
        .target(name: "SQLiteStorage", dependencies: ["Storage", "CSQLite", "CSQLiteWAL", "CShims", "Telemetry"], swiftSettings: swiftSettings),
        .target(name: "PostgresStorage", dependencies: ["Storage", "CPostgres", "Telemetry"], swiftSettings: swiftSettings),
        // The schema: the SQLite migrations embedded here, the PostgreSQL ones in PostgresSchema,
        // a resource-only helper target, because SwiftPM names an embedded file by its base name
        // (`PackageResources._001_accounts_sql`) and the two dialects' files share their names
        // on purpose: in one target they would collide.
        .target(name: "PostgresSchema", resources: [.embedInCode("migrations")], swiftSettings: swiftSettings),
        .target(
            name: "Schema",
            dependencies: ["Storage", "PostgresSchema"],
            resources: [.embedInCode("migrations/sqlite")],
            swiftSettings: swiftSettings
        ),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "CShims", "JSON", "Telemetry"], swiftSettings: swiftSettings),
        .target(name: "Auth", dependencies: ["Storage", "Crypto", "CCrypt", "Telemetry"], swiftSettings: swiftSettings),
        // The hook pipeline and the durable outbox.
        .target(name: "CloudHooks", dependencies: ["Storage", "JSON", "Telemetry"], swiftSettings: swiftSettings),
        .target(name: "VideoRegistry", dependencies: ["Storage", "Auth", "CloudHooks", "Crypto", "Telemetry"], swiftSettings: swiftSettings),
        .target(
            name: "Community",
            dependencies: ["Storage", "Auth", "VideoRegistry", "CloudHooks", "Imaging", "JSON", "Crypto", "Telemetry"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Delivery",
            dependencies: ["Storage", "Auth", "CloudHooks", "Community", "Crypto", "JSON", "Telemetry", "CCurl", "CShims", "CurlSupport"],
            swiftSettings: swiftSettings
        ),
        // The Parse REST API beside /v1: an adapter over the same domain, on HTTP; SocialAPI
        // registers its routes, and it never reaches SocialAPI (scripts/check-layers).
        .target(
            name: "ParseREST",
            dependencies: ["Storage", "HTTP", "Auth", "VideoRegistry", "Community", "JSON", "Crypto", "Telemetry"],
            swiftSettings: swiftSettings
        ),
        // The public web (`serve --public-web`): server-rendered HTML pages and the app-link files,
        // another adapter over the same domain and read stores; SocialAPI registers it, and it
        // never reaches SocialAPI or ParseREST (scripts/check-layers).
        .target(
            name: "PublicWeb",
            dependencies: ["Storage", "HTTP", "Auth", "VideoRegistry", "Community", "JSON", "Telemetry"],
            resources: [.embedInCode("Assets")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SocialAPI",
            dependencies: ["Storage", "SQLiteStorage", "Schema", "HTTP", "Auth", "VideoRegistry", "CloudHooks", "Community", "Delivery", "ParseREST", "PublicWeb", "Imaging", "JSON", "Crypto", "Telemetry"],
            resources: [.embedInCode("openapi.json"), .embedInCode("Console"), .embedInCode("AccountPages/account.js"), .embedInCode("AccountPages/account.css")],
            swiftSettings: swiftSettings
        ),
        // Sign-in providers' tokens (Apple, Google, Facebook), checked for Auth's IdentityVerifier:
        // the providers' JWKS and Facebook's Graph API fetched over libcurl, bounded.
        .target(name: "SignInProviders", dependencies: ["Auth", "Crypto", "JSON", "Telemetry", "CCurl", "CShims", "CurlSupport"], swiftSettings: swiftSettings),
        .target(
            name: "ParseImport",
            dependencies: ["Storage", "Schema", "Auth", "VideoRegistry", "Community", "Imaging", "JSON", "Telemetry"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "pacenote",
            dependencies: ["SocialAPI", "ParseREST", "PublicWeb", "Community", "Storage", "SQLiteStorage", "PostgresStorage", "Schema", "Auth", "HTTP", "Telemetry", "ParseImport", "CloudHooks", "Delivery", "SignInProviders"],
            swiftSettings: swiftSettings
        ),

        // Tests: one target per module, plus end-to-end tests against the real binary.
        // TestSupport holds what several test targets share (a temporary database, a disk that
        // fails on purpose: CSQLiteFaults, a fault-injecting SQLite VFS).
        .target(name: "CSQLiteFaults", dependencies: ["CSQLite"], path: "Tests/CSQLiteFaults"),
        .target(name: "TestSupport", dependencies: ["Storage", "SQLiteStorage", "PostgresStorage", "Schema", "Telemetry", "Crypto", "CSQLiteFaults", "CSQLiteWAL", "CSQLite"], path: "Tests/TestSupport"),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "TelemetryTests", dependencies: ["Telemetry"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "CVips", "CVipsThreadset", "TestSupport"]),
        // Token checks against a local JWKS and Graph stand-in (Tests/Support/standins, Python).
        .testTarget(name: "SignInProvidersTests", dependencies: ["SignInProviders", "Auth", "Crypto", "JSON", "TestSupport"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "SQLiteStorage", "PostgresStorage", "Schema", "TestSupport", "CSQLite", "Telemetry"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "JSON", "Telemetry", "TestSupport"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "Storage", "TestSupport", "Telemetry"]),
        .testTarget(name: "VideoRegistryTests", dependencies: ["VideoRegistry", "Storage", "Auth", "CloudHooks", "Telemetry"]),
        .testTarget(name: "CloudHooksTests", dependencies: ["CloudHooks", "Storage", "PostgresStorage", "Schema", "TestSupport", "Telemetry"]),
        .testTarget(name: "CommunityTests", dependencies: ["Community", "Auth", "VideoRegistry", "CloudHooks", "JSON", "Storage", "Telemetry", "TestSupport"]),
        // Push providers against local HTTP/2 stand-ins (Tests/Support/standins, Python).
        .testTarget(name: "DeliveryTests", dependencies: ["Delivery", "Crypto", "JSON", "Storage", "TestSupport", "Telemetry"]),
        .testTarget(name: "SocialAPITests", dependencies: ["SocialAPI", "Community", "CloudHooks", "Delivery", "HTTP", "Storage", "SQLiteStorage", "PostgresStorage", "Auth", "TestSupport", "Telemetry"]),
        .testTarget(name: "PublicWebTests", dependencies: ["PublicWeb", "Auth", "VideoRegistry", "JSON"]),
        .testTarget(name: "ParseRESTTests", dependencies: ["ParseREST", "Storage", "SQLiteStorage", "PostgresStorage", "Schema", "JSON", "HTTP", "TestSupport"]),
        .testTarget(name: "ParseImportTests", dependencies: ["ParseImport", "Storage", "Community", "Imaging", "Auth", "TestSupport", "Telemetry"]),
        .testTarget(name: "EndToEndTests", dependencies: ["pacenote", "Storage", "SQLiteStorage", "PostgresStorage", "TestSupport", "CVips", "Crypto"]),
    ]
)
