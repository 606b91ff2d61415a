import AsyncLayer
import Foundation

/// Runs another program with a time limit: in a process group of its own (so that a timeout kills
/// whatever it started too), its standard output and error read through pipes of which only the
/// first `keep` bytes are kept, so a program that hangs or floods its output cannot stall or fill
/// this one.
enum ChildProcess {
  struct Outcome {
    var status: Int32
    var signal: Int32?
    var timedOut: Bool
    var stdout: Data
    var stderr: Data

    /// How it ended, in words: "exited with status 3", "was killed by signal 11".
    var ending: String { signal.map { "was killed by signal \($0)" } ?? "exited with status \(status)" }

    /// The start of its standard error, else of its output: at most 300 characters, anything not
    /// printable shown as `\xNN`, so a binary outpouring cannot garble the terminal.
    var excerpt: String {
      let source = stderr.isEmpty ? stdout : stderr
      if source.isEmpty { return "(none)" }
      var text = ""
      var shown = 0
      for byte in source.prefix(300) {
        if (0x20..<0x7f).contains(byte) {
          text.append(Character(Unicode.Scalar(byte)))
        } else if byte == 0x0a {
          text += "\\n"
        } else {
          text += String(format: "\\x%02x", byte)
        }
        shown += 1
      }
      return "\"" + text + "\"" + (source.count > shown ? " (\(source.count) bytes; first \(shown) shown)" : "")
    }
  }

  static func run(_ path: String, arguments: [String], timeout: Double, keep: Int = 1 << 16) throws -> Outcome {
    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    guard pipe(&outPipe) == 0 else { throw BatchError("cannot make a pipe: \(FileAccess.reason(errno))") }
    guard pipe(&errPipe) == 0 else {
      let code = errno
      close(outPipe[0])
      close(outPipe[1])
      throw BatchError("cannot make a pipe: \(FileAccess.reason(code))")
    }
    // This end of each pipe stays out of other children (FD_CLOEXEC); the program's end is dup2'ed.
    for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    var spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    // ETXTBSY: some process still holds the program open for writing, most often a child another
    // thread forked while the program was being written (a just-built or just-written file). The
    // descriptor goes away when that child execs or exits, so a few short retries see it through.
    var delay: useconds_t = 2_000
    while spawned == ETXTBSY, delay <= 256_000 {
      usleep(delay)
      delay *= 2
      spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    }
    close(outPipe[1])
    close(errPipe[1])
    defer {
      close(outPipe[0])
      close(errPipe[0])
    }
    guard spawned == 0 else {
      throw BatchError(FileErrorDescription(path: path, operation: "cannot run", errno: spawned))
    }

    var output = [Data(), Data()]
    var open = [true, true]
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
    var timedOut = false
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while open[0] || open[1] {
      let now = DispatchTime.now().uptimeNanoseconds
      if !timedOut, now >= deadline {
        timedOut = true
        kill(-pid, SIGKILL)  // the group: the program and anything it started
      }
      // After the kill, the pipes close as soon as the group is gone.
      let wait = timedOut ? 5_000 : Int32(min((deadline - min(now, deadline)) / 1_000_000 + 1, 1_000))
      var fds = [
        pollfd(fd: open[0] ? outPipe[0] : -1, events: Int16(POLLIN), revents: 0),
        pollfd(fd: open[1] ? errPipe[0] : -1, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&fds, 2, wait)
      if ready < 0, errno == EINTR { continue }
      if ready == 0, timedOut { break }  // something outside the group keeps a pipe open
      for index in 0..<2 where open[index] && fds[index].revents != 0 {
        let count = buffer.withUnsafeMutableBytes { read(fds[index].fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 {
          open[index] = false
        } else if output[index].count < keep {
          output[index].append(contentsOf: buffer[0..<min(count, keep - output[index].count)])
        }
      }
    }
    if timedOut { kill(-pid, SIGKILL) }
    // Both pipes are closed; the program may still run (it closed them itself): the deadline holds.
    var status: Int32 = 0
    while true {
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid || (reaped < 0 && errno != EINTR) { break }
      if !timedOut, DispatchTime.now().uptimeNanoseconds >= deadline {
        timedOut = true
        kill(-pid, SIGKILL)
      }
      usleep(10_000)
    }
    let signalled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
    return Outcome(
      status: (status >> 8) & 0xff, signal: signalled ? status & 0x7f : nil, timedOut: timedOut, stdout: output[0],
      stderr: output[1])
  }
}
