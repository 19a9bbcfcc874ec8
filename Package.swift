// swift-tools-version:6.0
import PackageDescription

// Module layout and dependency direction: see docs/ARCHITECTURE.md.
// Storage <- Auth, Hooks <- VideoRegistry <- Community <- {Delivery, ParseImport, SocialAPI} <- pacenote.
// Community is the domain (activities, feeds, notifications, moderation, search, account mail);
// Delivery sends what it queues (APNs, FCM, webhook, SMTP) and is the only module on libcurl;
// SocialAPI is the HTTP adapter and the only module, with the executable, on HTTP (libmicrohttpd).
// JSON, Telemetry and Crypto are leaf utilities any module may use.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
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
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Typed wrappers for libcurl's variadic setopt/getinfo, which Swift cannot call.
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // A pass-through SQLite VFS that writes a transaction's WAL frames with one pwrite.
        .target(name: "CSQLiteWAL", dependencies: ["CSQLite"]),

        // Leaf utilities.
        .target(name: "JSON", swiftSettings: swiftSettings),
        .target(name: "Telemetry", dependencies: ["JSON"], swiftSettings: swiftSettings),
        .target(name: "Crypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),

        // Storage and the domain.
        // The PostgreSQL schema, in a target of its own: its files share their names with the
        // SQLite ones, and SwiftPM names embedded files by base name (PostgresMigrationFiles.swift).
        .target(name: "PostgresSchema", resources: [.embedInCode("migrations")], swiftSettings: swiftSettings),
        .target(
            name: "Storage",
            dependencies: ["CSQLite", "CSQLiteWAL", "CPostgres", "PostgresSchema", "Telemetry"],
            resources: [.embedInCode("migrations/sqlite")],
            swiftSettings: swiftSettings
        ),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "JSON", "Telemetry"], swiftSettings: swiftSettings),
        .target(name: "Auth", dependencies: ["Storage", "Crypto", "CCrypt", "Telemetry"], swiftSettings: swiftSettings),
        // The hook pipeline and the durable outbox.
        .target(name: "Hooks", dependencies: ["Storage", "JSON", "Telemetry"], swiftSettings: swiftSettings),
        .target(name: "VideoRegistry", dependencies: ["Storage", "Auth", "Hooks", "Crypto", "Telemetry"], swiftSettings: swiftSettings),
        .target(
            name: "Community",
            dependencies: ["Storage", "Auth", "VideoRegistry", "Hooks", "JSON", "Crypto", "Telemetry"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Delivery",
            dependencies: ["Storage", "Auth", "Hooks", "Community", "Crypto", "JSON", "Telemetry", "CCurl", "CCurlShim"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SocialAPI",
            dependencies: ["Storage", "HTTP", "Auth", "VideoRegistry", "Hooks", "Community", "Delivery", "JSON", "Crypto", "Telemetry"],
            resources: [.embedInCode("openapi.json"), .embedInCode("Console"), .embedInCode("AccountPages/account.js"), .embedInCode("AccountPages/account.css")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ParseImport",
            dependencies: ["Storage", "Auth", "VideoRegistry", "Community", "JSON", "Telemetry"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "pacenote",
            dependencies: ["SocialAPI", "Community", "Storage", "Auth", "HTTP", "Telemetry", "ParseImport", "Hooks", "Delivery"],
            swiftSettings: swiftSettings
        ),

        // Tests: one target per module, plus end-to-end tests against the real binary.
        // TestSupport holds what several test targets share (a temporary database, a disk that
        // fails on purpose: CSQLiteFaults, a fault-injecting SQLite VFS).
        .target(name: "CSQLiteFaults", dependencies: ["CSQLite"], path: "Tests/CSQLiteFaults"),
        .target(name: "TestSupport", dependencies: ["Storage", "Telemetry", "CSQLiteFaults", "CSQLiteWAL", "CSQLite"], path: "Tests/TestSupport"),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "TelemetryTests", dependencies: ["Telemetry"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "TestSupport", "CSQLite", "Telemetry"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "JSON", "Telemetry", "TestSupport"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "Storage", "TestSupport", "Telemetry"]),
        .testTarget(name: "VideoRegistryTests", dependencies: ["VideoRegistry", "Storage", "Auth", "Hooks", "Telemetry"]),
        .testTarget(name: "HooksTests", dependencies: ["Hooks", "Storage", "TestSupport", "Telemetry"]),
        .testTarget(name: "CommunityTests", dependencies: ["Community"]),
        // Push providers against local HTTP/2 stand-ins (Tests/Support/standins, Python).
        .testTarget(name: "PushTests", dependencies: ["Delivery", "Crypto", "JSON", "Storage", "TestSupport", "Telemetry"]),
        .testTarget(name: "SocialAPITests", dependencies: ["SocialAPI", "Community", "Hooks", "Delivery", "HTTP", "Storage", "Auth", "TestSupport", "Telemetry"]),
        .testTarget(name: "ParseImportTests", dependencies: ["ParseImport", "Storage", "Community", "Auth", "TestSupport", "Telemetry"]),
        .testTarget(name: "EndToEndTests", dependencies: ["pacenote", "Storage", "TestSupport"]),
    ]
)
