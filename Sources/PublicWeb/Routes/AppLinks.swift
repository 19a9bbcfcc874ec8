import JSON

/// The two files that let the apps open this site's links themselves (universal links on iOS,
/// verified App Links on Android), for the public pages' paths.
enum AppLinks {
    /// The page patterns, under the public URL's own path when it has one.
    static func patterns(_ site: PublicURL) -> [String] {
        ["r", "v", "u"].map { site.path + "/\($0)/*" }
    }

    /// `apple-app-site-association`: the `applinks` format of iOS 13 and later (`details` with
    /// `appIDs` and `components`) and, in the same entry, the older `appID` with `paths` that
    /// iOS 12 reads (Apple: "Supporting associated domains"); `apps` is the empty array the
    /// older format requires.
    static func appleAssociation(_ appID: AppleAppID, site: PublicURL) -> JSONWriter {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("applinks")
        writer.beginObject()
        writer.key("apps")
        writer.beginArray()
        writer.endArray()
        writer.key("details")
        writer.beginArray()
        writer.beginObject()
        writer.key("appIDs")
        writer.beginArray()
        writer.value(appID.text)
        writer.endArray()
        writer.key("components")
        writer.beginArray()
        for pattern in patterns(site) {
            writer.beginObject()
            writer.field("/", pattern)
            writer.endObject()
        }
        writer.endArray()
        writer.field("appID", appID.text)
        writer.key("paths")
        writer.beginArray()
        for pattern in patterns(site) { writer.value(pattern) }
        writer.endArray()
        writer.endObject()
        writer.endArray()
        writer.endObject()
        writer.endObject()
        return writer
    }

    /// `assetlinks.json`: one Digital Asset Links statement, `handle_all_urls` for the app.
    static func assetLinks(_ app: AndroidApp) -> JSONWriter {
        var writer = JSONWriter(capacity: 512)
        writer.beginArray()
        writer.beginObject()
        writer.key("relation")
        writer.beginArray()
        writer.value("delegate_permission/common.handle_all_urls")
        writer.endArray()
        writer.key("target")
        writer.beginObject()
        writer.field("namespace", "android_app")
        writer.field("package_name", app.packageName)
        writer.key("sha256_cert_fingerprints")
        writer.beginArray()
        for print in app.certificateFingerprints { writer.value(print) }
        writer.endArray()
        writer.endObject()
        writer.endObject()
        writer.endArray()
        return writer
    }
}
