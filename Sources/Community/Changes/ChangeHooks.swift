import Auth
import CloudHooks
import Storage
import Telemetry
import VideoRegistry

/// Keeps the change log (`ChangeLog`, `GET /v1/changes`) in step with every write of a rally
/// or a video, through the hook pipeline, in the write's own transaction. What fires:
/// - Rally or video saved (created, edited; a video hidden or restored, by a moderator or the
///   automatic hide): its row moves to a new position.
/// - Rally or video deleted (a video also by its owner's account deletion, which deletes
///   through the pipeline): its row becomes a tombstone at a new position.
/// - Account banned or unbanned: each of its videos' rows moves, since what readers may see
///   of them changed (one statement per video, inside the ban's transaction).
///
/// Counters (likes, comments, flags, `videosCount`) move by UPDATEs outside the pipeline, so
/// they are no change, as API.md asks; the object sent carries them as they are when read.
package enum ChangeHooks {
    package static func register(on registry: HookRegistry, clock: any WallClock) {
        let log = ChangeLog()
        registry.afterSave(Video.self) { event in
            try log.record(.video, id: event.entity.id, deleted: false, now: clock.nowMillis(), on: event.connection)
        }
        registry.afterDelete(Video.self) { event in
            try log.record(.video, id: event.entity.id, deleted: true, now: clock.nowMillis(), on: event.connection)
        }
        registry.afterSave(Rally.self) { event in
            try log.record(.rally, id: event.entity.id, deleted: false, now: clock.nowMillis(), on: event.connection)
        }
        registry.afterDelete(Rally.self) { event in
            try log.record(.rally, id: event.entity.id, deleted: true, now: clock.nowMillis(), on: event.connection)
        }
        registry.afterSave(Account.self) { event in
            guard let previous = event.previous, previous.isBanned != event.entity.isBanned else { return }
            let now = clock.nowMillis()
            let ids = try event.connection.fetchAll("SELECT id FROM videos WHERE owner_id = \(event.entity.id) ORDER BY created_at, id") { reader -> String in
                try reader.next()
            }
            for id in ids { try log.record(.video, id: id, deleted: false, now: now, on: event.connection) }
        }
    }
}
