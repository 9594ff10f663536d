import Synchronization
import YrdenLineIO

#if canImport(Glibc)
import Glibc
#endif

/// Changes in one directory, from inotify, as a stream of "look again" signals.
///
/// The directory is watched rather than the file, so a file an editor replaces by renaming a new one over it
/// is still seen (a watch on the file would follow the old inode). One thread blocks in `poll` on the inotify
/// descriptor and a stop pipe: it never waits on Swift work and costs nothing between changes. The stream keeps
/// only the newest signal, since a reader that has not looked yet looks at the latest state anyway.
enum DirectoryEvents {
    /// Why inotify cannot watch a directory (no inotify, too many watches, a file system that does not report
    /// changes made elsewhere); the caller polls instead.
    struct Unavailable: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// What makes an entry worth looking at again: written and closed, renamed in or out, created, removed,
    /// its attributes changed (`touch`).
    private static let entryMask =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
        | UInt32(IN_DELETE) | UInt32(IN_ATTRIB)
    /// The directory itself went away, moved, or its file system was unmounted: the watch no longer
    /// describes the path.
    private static let lostMask =
        UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_UNMOUNT) | UInt32(IN_IGNORED)

    /// Signals when an entry of `directory` named in `names` changes (any entry when `names` is `nil`). The
    /// stream ends when the watch is lost (the directory removed, moved or unmounted); ending the iteration
    /// stops the thread.
    static func watch(_ directory: String, names: Set<String>?) throws(Unavailable) -> AsyncStream<Void> {
        if let kind = MountTable.current().unreliableFileSystem(of: directory) {
            throw Unavailable(description: "\(directory) is on \(kind), where inotify misses changes made elsewhere")
        }
        let inotify = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw Unavailable(description: "inotify_init1: \(Self.lastError())") }
        let mask = entryMask | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR)
        guard inotify_add_watch(inotify, directory, mask) >= 0 else {
            let reason = Self.lastError()
            close(inotify)
            throw Unavailable(description: "inotify_add_watch \(directory): \(reason)")
        }
        let stop: StopPipe
        do { stop = try StopPipe() } catch {
            close(inotify)
            throw error
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        continuation.onTermination = { _ in stop.signal() }
        do {
            try DetachedThread.start(name: "yrden-config-watch") {
                Self.follow(inotify: inotify, stop: stop.readEnd, names: names) { continuation.yield(()) }
                close(inotify)
                stop.closeReadEnd()
                continuation.finish()
            }
        } catch {
            close(inotify)
            stop.closeReadEnd()
            throw Unavailable(description: error.description)
        }
        return stream
    }

    /// Blocks until `stop` is readable or closed, or the watch is lost; calls `changed` once per batch of
    /// events that names an entry of interest.
    private static func follow(inotify: Int32, stop: Int32, names: Set<String>?, changed: () -> Void) {
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
        ]
        // Room for many events of the longest name (NAME_MAX) at once.
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            guard poll(&descriptors, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
            let (relevant, lost) = drain(inotify, into: &buffer, names: names)
            if relevant { changed() }
            if lost { return }
        }
    }

    /// Reads every pending event; whether one named an entry of interest (or the queue overflowed, so some
    /// may have), and whether the watch is lost.
    private static func drain(
        _ inotify: Int32,
        into buffer: inout [UInt8],
        names: Set<String>?
    ) -> (relevant: Bool, lost: Bool) {
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return (relevant, errno != EAGAIN && errno != EWOULDBLOCK)
            }
            if count == 0 { return (relevant, true) }
            for event in InotifyEvents(buffer[..<count]) {
                if event.mask & lostMask != 0 { return (true, true) }
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                if event.mask & entryMask != 0, names.map({ $0.contains(event.name) }) ?? true { relevant = true }
            }
        }
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}

/// How the watch's reader is told to stop: a byte on a pipe it polls, which wakes it even if a child forked
/// meanwhile holds a copy of the write end. The byte is written only while the read end is open, so a
/// reader that already left never costs the process a SIGPIPE.
final class StopPipe: Sendable {
    let readEnd: Int32
    private let ends: Mutex<(read: Int32?, write: Int32?)>

    init() throws(DirectoryEvents.Unavailable) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .init(description: "pipe: \(DirectoryEvents.lastError())") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        self.ends = Mutex((ends[0], ends[1]))
    }

    /// Wakes the reader (once); later calls do nothing.
    func signal() {
        ends.withLock { ends in
            guard let write = ends.write else { return }
            if ends.read != nil {
                var byte: UInt8 = 1
                _ = Glibc.write(write, &byte, 1)
            }
            close(write)
            ends.write = nil
        }
    }

    /// The reader is gone; the write end, if still open, is closed by ``signal()``.
    func closeReadEnd() {
        ends.withLock { ends in
            if let read = ends.read { close(read) }
            ends.read = nil
        }
    }
}

/// The events in one `read` of an inotify descriptor: each a fixed header (`wd`, `mask`, `cookie`, `len`)
/// and `len` bytes of NUL-padded name.
struct InotifyEvents: Sequence {
    struct Event {
        var mask: UInt32
        var name: String
    }

    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    func makeIterator() -> AnyIterator<Event> {
        var offset = bytes.startIndex
        let bytes = self.bytes
        return AnyIterator {
            let header = 16
            guard bytes.endIndex - offset >= header else { return nil }
            func word(_ at: Int) -> UInt32 {
                bytes[(offset + at)..<(offset + at + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            }
            let mask = word(4)
            let length = Int(word(12))
            let nameStart = offset + header
            let nameEnd = Swift.min(nameStart + length, bytes.endIndex)
            let raw = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            offset = nameEnd
            return Event(mask: mask, name: String(decoding: raw, as: UTF8.self))
        }
    }
}
