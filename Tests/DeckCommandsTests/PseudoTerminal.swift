import Foundation

/// Drives the built `deck` through a pseudo-terminal with Python's `pty` module: sends
/// lines, waits for expected text, and returns the transcript and exit status.
///
/// Each step sends its text (when any), then waits until `expect` appears in the output
/// after the previous match; a step that times out ends the run with `timedOut` set.
struct PseudoTerminal {
    struct Step: Encodable {
        var send: String?
        var expect: String?
        /// Seconds to wait for `expect`.
        var timeout: Double = 10
        /// A `deck` command run (not through the terminal) once `expect` was seen; its
        /// stdout and status are returned in order.
        var sideCommand: [String]?
        /// A signal sent to `deck` (e.g. "TERM") after `send`.
        var signal: String?
    }

    struct Result: Decodable {
        var status: Int32?
        var transcript: String
        var timedOut: String?
        var side: [SideResult]
    }

    struct SideResult: Decodable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], in directory: URL, steps: [Step], environment: [String: String] = [:]) throws -> Result {
        // History goes to the test's own folder, never the home of whoever runs the tests.
        var environment = environment
        if environment["XDG_STATE_HOME"] == nil { environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path }
        let request: [String: Any] = [
            "binary": DeckProcess.executable.path,
            "arguments": arguments,
            "directory": directory.path,
            "environment": environment,
        ]
        let stepData = try JSONEncoder().encode(steps)
        var payload = request
        payload["steps"] = try JSONSerialization.jsonObject(with: stepData)
        let input = try JSONSerialization.data(withJSONObject: payload)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", driver]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DriverFailure(message: "python3 pty driver failed (\(process.terminationStatus)): " + String(decoding: errors, as: UTF8.self))
        }
        return try JSONDecoder().decode(Result.self, from: output)
    }

    struct DriverFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The Python side: fork on a pty, exec deck, play the steps.
    static let driver = #"""
import json, os, pty, select, signal, subprocess, sys, time
req = json.load(sys.stdin)
env = dict(os.environ)
env.update({"TERM": "xterm", "COLUMNS": "80", "LINES": "24"})
env.pop("DECK_NO_LINE_EDITING", None)
env.pop("DECK_HISTORY_FILE", None)
env.update(req["environment"])
pid, fd = pty.fork()
if pid == 0:
    os.chdir(req["directory"])
    os.execve(req["binary"], [req["binary"]] + req["arguments"], env)
buf = b""
pos = 0
timed_out = None
side = []
def pump(deadline):
    global buf
    while True:
        left = deadline - time.time()
        if left <= 0:
            return False
        r, _, _ = select.select([fd], [], [], min(left, 0.2))
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return None
            if not data:
                return None
            buf += data
            return True
for step in req["steps"]:
    if step.get("send") is not None:
        os.write(fd, step["send"].encode())
    if step.get("signal"):
        os.kill(pid, getattr(signal, "SIG" + step["signal"]))
    want = step.get("expect")
    if want:
        deadline = time.time() + step.get("timeout", 10)
        w = want.encode()
        while buf.find(w, pos) < 0:
            got = pump(deadline)
            if got is False or got is None:
                timed_out = want
                break
        if timed_out:
            break
        pos = buf.find(w, pos) + len(w)
    if step.get("sideCommand"):
        p = subprocess.run([req["binary"]] + step["sideCommand"], cwd=req["directory"], capture_output=True, env=env)
        side.append({"status": p.returncode, "stdout": p.stdout.decode(errors="replace"), "stderr": p.stderr.decode(errors="replace")})
status = None
if timed_out:
    os.kill(pid, 9)
deadline = time.time() + 10
while time.time() < deadline:
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = os.waitstatus_to_exitcode(st)
        break
    pump(time.time() + 0.1)
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
try:
    while pump(time.time() + 0.1):
        pass
except Exception:
    pass
print(json.dumps({"status": status, "transcript": buf.decode(errors="replace"), "timedOut": timed_out, "side": side}))
"""#
}
