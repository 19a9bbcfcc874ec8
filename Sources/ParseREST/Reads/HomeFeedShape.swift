import Auth
import Community
import JSON
import Storage
import VideoRegistry

/// The original app's home feed, "the videos of the people I follow, newest first":
/// `{"owner": {"$select": {"query": {"className": "Activity", "where": {"fromUser": <me>,
/// "type": 4}}, "key": "toUser"}}}` with `order=-createdAt` (or none) and nothing else. As a
/// subquery it reads every video of every account followed and sorts them for a page
/// (BENCHMARKS.md "The Parse facade"); this is the list `/v1`'s home feed keeps ready, so it is
/// read from the caller's home timeline (`FeedStore.home`, the call `GET /v1/feed/home` makes),
/// less the caller's own videos, which the home timeline holds and the Parse query does not.
/// The page's ids then go through the facade's ordinary by-key statement (keys, include,
/// visibility). Any other shape, or a page deeper than `maxRows`, takes the general path.
enum HomeFeedShape {
    /// `skip + limit` served from the timeline; deeper pages run the subquery.
    static let maxRows = 1_000

    static func matches(_ query: ParseQuery, _ schema: ParseSchema, callerID: String) -> Bool {
        guard schema.className == "Video", query.alternatives.isEmpty, !query.count, query.limit > 0,
              query.skip + query.limit <= maxRows, query.constraints.count == 1, let constraint = query.constraints.first,
              constraint.field == "owner", constraint.op == .select,
              query.order.isEmpty || query.order == [QueryPlan.OrderTerm(field: "createdAt", descending: true)] else { return false }
        let me: JSONValue = .object(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string(callerID)])
        let follows: JSONValue = .object([
            "query": .object(["className": .string("Activity"), "where": .object(["fromUser": me, "type": .int(4)])]),
            "key": .string("toUser"),
        ])
        return constraint.value == follows
    }

    /// `translated` (the general translation, which checked keys and include) made a by-key
    /// read of the page's videos, newest first.
    static func page(_ translated: TranslatedQuery, _ query: ParseQuery, for identity: Accounts.Identity, on database: any Database) throws
        -> TranslatedQuery {
        let wanted = query.skip + query.limit
        let viewer = Viewer(identity)
        let selection = Selection(columns: "v.id, v.owner_id") { reader in (id: try reader.next() as String, owner: try reader.next() as String) }
        let ids: [String] = try database.read { connection in
            var ids: [String] = []
            var after: FeedStore.SeqPosition?
            while ids.count < wanted {
                // A few more than needed: the caller's own videos are left out.
                let asked = min(100, wanted - ids.count + 5)
                let rows = try FeedStore().home(readerSeq: identity.userSeq, viewer: viewer, after: after, limit: asked,
                                                selecting: selection, on: connection)
                ids += rows.filter { $0.0.owner != identity.userID }.map(\.0.id)
                guard rows.count == asked, let last = rows.last else { break }
                after = last.1
            }
            return ids
        }
        let page = ids.dropFirst(query.skip).prefix(query.limit)
        let filter: SQL = page.isEmpty ? "1 = 0" : "v.id IN (\(SQL.joined(page.map { "\($0)" }, separator: ", ")))"
        return TranslatedQuery(filter: filter, order: "v.created_at DESC, v.id DESC", limit: query.limit, skip: 0, count: false, byKey: true,
                               keys: translated.keys, include: translated.include)
    }
}
