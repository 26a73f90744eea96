import Foundation
import PrefsCore
import PrefsTestSupport
import Testing

@Suite("history, watch, expiry, CAS, counters, apply", .timeLimit(.minutes(5)), .ownThreads)
struct HistoryTests {
    /// Runs `count` shell scripts at once and returns their results.
    func parallel(_ box: Sandbox, _ scripts: [String]) -> [RunResult?] {
        let results = ResultBox()
        let group = DispatchGroup()
        let binary = Sandbox.binary  // asked for on the test's task: the spawn log names the test
        for script in scripts {
            group.enter()
            let env = box.environment()
            let store = box.store
            Thread {
                // 250 processes in a row on a loaded machine: more than the default minute.
                results.append(try? Sandbox.exec("/bin/sh", ["-c", script, binary, store], stdin: nil, environment: env, timeout: 900))
                group.leave()
            }.start()
        }
        group.wait()
        return results.all
    }

    @Test func eightProcessesIncrementingEndAtExactlyTwoThousand() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "other", "1"])
        let script = "i=0; while [ $i -lt 250 ]; do \"$0\" --store \"$1\" incr user hits >/dev/null || exit 1; i=$((i+1)); done"
        for result in parallel(box, Array(repeating: script, count: 8)) {
            #expect(result?.status == 0, "\(String(describing: result))")
        }
        #expect(try box.runOK(["get", "user", "hits"]).stdout == "2000\n")
        let log = try box.runOK(["log", "user", "hits", "--limit", "3000"]).stdout.split(separator: "\n")
        #expect(log.count == 2000, "every increment is in the change log")
    }

    @Test func incrPrintsTheNewValueAndRefusesNonIntegers() throws {
        let box = try Sandbox(inProcess: true)
        #expect(try box.runOK(["incr", "user", "n"]).stdout == "1\n")
        #expect(try box.runOK(["incr", "user", "n", "--by", "41"]).stdout == "42\n")
        #expect(try box.runOK(["incr", "user", "n", "--by=-50"]).stdout == "-8\n")
        try box.runOK(["set", "user", "s", "text"])
        try box.runOK(["set", "user", "f", "1.5"])
        expectFailure(try box.runFailing(["incr", "user", "s"], status: 6), 6, contains: "not an integer")
        expectFailure(try box.runFailing(["incr", "user", "f"], status: 6), 6, contains: "non-integer")
        try box.runOK(["set", "user", "max", "9223372036854775807"])
        expectFailure(try box.runFailing(["incr", "user", "max"], status: 6), 6, contains: "overflows")
        #expect(try box.runOK(["get", "user", "s"]).stdout == "text\n")
    }

    @Test func watchSeesEveryChangeOfOtherProcessesInOrderOnce() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "ready", "0"])
        let process = box.process(["watch", "--json"])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let collected = LinesCollector(output.fileHandleForReading)
        // Wait until the watcher is polling: it reports a marker change.
        var ready = false
        for attempt in 1...100 where !ready {
            try box.runOK(["set", "user", "ready", "\(attempt)"])
            Thread.sleep(forTimeInterval: 0.05)
            ready = collected.count > 0
        }
        #expect(ready)
        let before = collected.count
        let writers = (0..<4).map { p in
            "i=0; while [ $i -lt 125 ]; do echo \"set w\(p) k$i $i\"; i=$((i+1)); done | \"$0\" --store \"$1\" batch --window 1ms >/dev/null"
        }
        for result in parallel(box, writers) { #expect(result?.status == 0, "\(String(describing: result))") }
        let deadline = Date().addingTimeInterval(10)
        while collected.count < before + 500 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.3)  // anything extra would show up now
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "SIGTERM ends watch cleanly")
        let records = collected.finish().compactMap { line -> (seq: Int, domain: String, key: String)? in
            guard let data = line.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let seq = object["seq"] as? Int, let domain = object["domain"] as? String, let key = object["key"] as? String
            else { return nil }
            return (seq, domain, key)
        }
        let changes = records.filter { $0.domain.hasPrefix("w") }
        #expect(changes.count == 500)
        #expect(Set(changes.map { "\($0.domain)/\($0.key)" }).count == 500, "no duplicates")
        #expect(records.map(\.seq) == records.map(\.seq).sorted() && Set(records.map(\.seq)).count == records.count, "commit order")
        let logOrder = try box.runOK(["log", "--json", "--limit", "600"]).stdout.split(separator: "\n").reversed()
            .compactMap { line -> Int? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    (object["domain"] as? String)?.hasPrefix("w") == true
                else { return nil }
                return object["seq"] as? Int
            }
        #expect(Array(logOrder) == changes.map(\.seq))
    }

    @Test func watchRunsACommandWithoutAShellAndOnceExits() throws {
        let box = try Sandbox(inProcess: true)
        let outFile = box.root + "/events.txt"
        let script = "printf '%s|%s|%s|%s\\n' \"$PREFS_EVENT\" \"$PREFS_DOMAIN\" \"$PREFS_KEY\" \"$PREFS_VALUE\" >> \(outFile)"
        try box.runOK(["set", "user", "init", "1"])
        // Waits until the watcher has taken its starting point (no fixed sleep).
        let watcher = try BackgroundRun.watch(["watch", "user", "--once", "--", "/bin/sh", "-c", script], box: box)
        try box.runOK(["set", "switch", "ignored", "1"])
        try box.runOK(["set", "user", "evil", "$(touch \(box.root)/pwned); `id`"])
        let finished = watcher.finish(timeout: 30)
        #expect(finished.status == 0, "\(finished)")
        let events = try String(contentsOfFile: outFile, encoding: .utf8)
        #expect(events == "set|user|evil|\"$(touch \(box.root)/pwned); `id`\"\n")
        #expect(!FileManager.default.fileExists(atPath: box.root + "/pwned"), "values are never executed")
    }

    /// A command named without a slash is found on PATH (as `exec` finds one); one that is not
    /// there is reported for each change, and the watch goes on to the next.
    @Test func watchFindsItsCommandOnPathAndReportsAMissingOne() throws {
        let box = try Sandbox(inProcess: true)
        let bin = box.root + "/bin"
        let outFile = box.root + "/events.txt"
        try #require(mkdir(bin, 0o755) == 0)
        let script = "#!/bin/sh\nprintf '%s=%s\\n' \"$PREFS_KEY\" \"$PREFS_VALUE\" >> \(outFile)\n"
        try script.write(toFile: bin + "/record-change", atomically: true, encoding: .utf8)
        try #require(chmod(bin + "/record-change", 0o755) == 0)
        let path = bin + ":/usr/bin:/bin"
        let (found, _) = try Running.watch(
            ["--store", box.store, "watch", "user", "--once", "--", "record-change"], box: box, environment: ["PATH": path])
        try box.runOK(["set", "user", "a", "1"])
        let ran = found.finish(timeout: 30)
        #expect(ran.status == 0 && ran.stderr.isEmpty, "\(ran)")
        #expect(try String(contentsOfFile: outFile, encoding: .utf8) == "a=1\n")

        let (missing, _) = try Running.watch(
            ["--store", box.store, "watch", "user", "--", "no-such-command-here"], box: box, environment: ["PATH": path])
        try box.runOK(["set", "user", "b", "2"])
        try box.runOK(["set", "user", "c", "3"])
        let deadline = Date().addingTimeInterval(20)
        while missing.lines.snapshot().count < 2 && Date() < deadline { usleep(10_000) }
        let ended = missing.finish(signal: SIGTERM, timeout: 30)
        #expect(ended.stdout == "set\tuser\tb\t2\nset\tuser\tc\t3\n", "\(ended)")
        let reported = "prefs: cannot run no-such-command-here: No such file or directory\n"
        #expect(ended.stderr == reported + reported, "\(ended)")
    }

    @Test func ttlHidesTheKeyAfterItExpires() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "t", "warm", "--ttl", "1s"])
        #expect(try box.runOK(["get", "user", "t"]).stdout == "warm\n")
        let meta = try box.runOK(["get", "user", "t", "--show-meta"]).stdout
        #expect(
            meta.hasPrefix("{\"value\":\"warm\",\"version\":") && meta.contains("\"updatedAt\":\"20")
                && meta.contains("\"expiresAt\":\"20"), "\(meta)")
        Thread.sleep(forTimeInterval: 1.1)
        expectFailure(try box.runFailing(["get", "user", "t"], status: 1), 1)
        #expect(try box.runOK(["list", "user"]).stdout == "")
        #expect(try box.runOK(["export"]).stdout == "{}\n")
        try box.runOK(["set", "user", "other", "1"])
        #expect(try box.runOK(["log", "user", "t"]).stdout.contains("\texpire\tuser\tt\t\"warm\"\t-\t"))
        expectFailure(try box.runFailing(["set", "user", "t", "x", "--ttl", "0s"], status: 2), 2)
        expectFailure(try box.runFailing(["set", "user", "t", "x", "--ttl", "soon"], status: 2), 2)
    }

    @Test func compareAndSetRacesHaveExactlyOneWinner() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "init", "1"])
        for round in 0..<6 {
            let scripts = ["a", "b"].map { "\"$0\" --store \"$1\" set user lock\(round) \($0) --if-absent" }
            let statuses = parallel(box, scripts).map { $0?.status }
            #expect(statuses.sorted { ($0 ?? -1) < ($1 ?? -1) } == [0, 5], "round \(round): \(statuses)")
        }
        let current = try version(box, "init")
        let versioned = ["x", "y"].map { "\"$0\" --store \"$1\" set user init \($0) --if-version \(current)" }
        #expect(parallel(box, versioned).map { $0?.status ?? -1 }.sorted() == [0, 5])
    }

    @Test func conditionalRemove() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        expectFailure(try box.runFailing(["rm", "user", "k", "--if-version", "1"], status: 5), 5)
        expectFailure(try box.runFailing(["rm", "user", "k", "--if-absent"], status: 5), 5)
        try box.runOK(["rm", "user", "never", "--if-absent"])
        try box.runOK(["set", "user", "o", "{\"a\":1,\"b\":[1.0,2]}"])
        expectFailure(try box.runFailing(["rm", "user", "o", "--if-value", "{\"a\":2,\"b\":[1,2]}"], status: 5), 5)
        #expect(try box.runOK(["rm", "user", "o", "--if-value", "{\"b\":[1,2.00],\"a\":1}"]).status == 0, "equivalent JSON matches")
        expectFailure(try box.runFailing(["rm", "user", "k", "--if-value", "\"w\""], status: 5), 5)
        try box.runOK(["get", "user", "k"])
        try box.runOK(["rm", "user", "k", "--if-value", "\"v\""])
        expectFailure(try box.runFailing(["get", "user", "k"], status: 1), 1)
        expectFailure(try box.runFailing(["rm", "user", "a", "b", "--if-version", "1"], status: 2), 2)
    }

    @Test func applyIsAllOrNothing() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        try box.runOK(["set", "user", "b", "2"])
        let failing = """
            [{"op":"set","domain":"user","key":"a","value":10},
             {"op":"rm","domain":"user","key":"b"},
             {"op":"incr","domain":"user","key":"n","by":5},
             {"op":"set","domain":"user","key":"c","value":3,"ifAbsent":true},
             {"op":"set","domain":"user","key":"a","value":11,"ifValue":99}]
            """
        // Move everything into the main file first, so its bytes are the whole store.
        let checkpoint = try DatabaseQueue(path: box.store)
        try checkpoint.writeWithoutTransaction { _ = try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try checkpoint.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: box.store))
        let snapshot = try box.storeSnapshot()
        expectFailure(
            try box.runFailing(["apply"], status: 5, stdin: failing), 5, contains: "operation 5: user/a does not hold the expected value")
        #expect(try Data(contentsOf: URL(fileURLWithPath: box.store)) == before, "byte for byte as before")
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: box.store + "-wal"))) ?? Data()
        #expect(wal.isEmpty, "the failed transaction wrote nothing to the journal either")
        #expect(try box.storeSnapshot() == snapshot)
        let passing = failing.replacingOccurrences(of: "\"ifValue\":99", with: "\"ifValue\":10.0")
        try box.runOK(["apply", "-"], stdin: passing)
        #expect(try box.runOK(["list", "user"]).stdout == "a\t11\nc\t3\nn\t5\n")
        let applied = try box.runOK(["log", "user", "--limit", "5"]).stdout.split(separator: "\n").count
        #expect(applied == 5)
    }

    @Test(arguments: [
        ("{}", "expected a JSON array"), ("[1]", "$[0]: expected an object"),
        ("[{\"op\":\"zap\",\"domain\":\"user\",\"key\":\"k\"}]", "$[0].op"),
        ("[{\"op\":\"set\",\"domain\":\"User\",\"key\":\"k\",\"value\":1}]", "$[0].domain"),
        ("[{\"op\":\"set\",\"domain\":\"user\",\"key\":\"k\"}]", "$[0].value: missing"),
        ("[{\"op\":\"rm\",\"domain\":\"user\",\"key\":\"k\",\"value\":1}]", "$[0].value: not allowed"),
        ("[{\"op\":\"incr\",\"domain\":\"user\",\"key\":\"k\",\"by\":\"x\"}]", "$[0].by"),
        ("[{\"op\":\"set\",\"domain\":\"user\",\"key\":\"k\",\"value\":1,\"ttl\":\"never\"}]", "$[0].ttl"),
        ("[{\"op\":\"set\",\"domain\":\"user\",\"key\":\"k\",\"value\":1,\"ifAbsent\":true,\"ifVersion\":1}]", "use one of"),
        ("[{\"op\":\"set\",\"domain\":\"user\",\"key\":\"\",\"value\":1}]", "$[0].key"), ("[", "invalid JSON"),
    ])
    func invalidApplyDocumentsAreExitSix(document: String, message: String) throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "k", "v"])
        let before = try box.storeSnapshot()
        expectFailure(try box.runFailing(["apply"], status: 6, stdin: document), 6, contains: message)
        #expect(try box.storeSnapshot() == before)
    }

    @Test func sigtermEndsWatchWhileItsCommandIgnoresTerm() throws {
        let box = try Sandbox(inProcess: true)
        let pidFile = box.root + "/child.pid"
        let sleepFile = box.root + "/sleep.pid"
        try box.runOK(["set", "user", "init", "1"])
        let process = box.process([
            "watch", "user", "k", "--", "/bin/sh", "-c", "trap '' TERM; sleep 60 & echo $! > \(sleepFile); echo $$ > \(pidFile); wait",
        ])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Change the key until the command has started (the watcher may not poll yet).
        var childPID: pid_t = 0
        let startDeadline = Date().addingTimeInterval(10)
        var attempt = 0
        while childPID == 0 && Date() < startDeadline {
            attempt += 1
            try box.runOK(["set", "user", "k", "\(attempt)"])
            Thread.sleep(forTimeInterval: 0.2)
            childPID =
                (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap {
                    Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
                } ?? 0
        }
        try #require(childPID > 0, "the command started")
        #expect(kill(childPID, 0) == 0, "the command is running")
        let started = Date()
        kill(process.processIdentifier, SIGTERM)
        let ended = DispatchSemaphore(value: 0)
        Thread {
            process.waitUntilExit()
            ended.signal()
        }.start()
        let inTime = ended.wait(timeout: .now() + 10) == .success
        if !inTime {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        #expect(inTime, "watch ends within its 5 s grace (plus start-up)")
        #expect(Date().timeIntervalSince(started) < 8)
        #expect(process.terminationStatus == 0, "SIGTERM ends watch with exit 0")
        // The command (and the sleep it started) are gone, not orphaned.
        Thread.sleep(forTimeInterval: 0.2)
        // Gone, or a zombie waiting for whichever ancestor reaps orphans.
        func gone(_ pid: pid_t) -> Bool {
            guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
        #expect(gone(childPID), "the command was killed")
        let sleepPID =
            (try? String(contentsOfFile: sleepFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            ?? 0
        #expect(sleepPID > 0 && gone(sleepPID), "what the command started is gone too (its process group was killed)")
        // Leave nothing behind when the test fails.
        if !gone(childPID) { kill(childPID, SIGKILL) }
        if sleepPID > 0 && !gone(sleepPID) { kill(sleepPID, SIGKILL) }
    }

    /// Finding 9 of issue 16: text planted in a store (by a peer, before pulled operations
    /// were checked, or by hand) is shown escaped in tabular output, one line per record.
    @Test func plantedControlCharactersAreEscapedInTabularOutput() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        try box.runOK(["set", "user", "b", "2"])
        let forged = "mallory\n99\t2026-01-01T00:00:00Z\tset\tuser\tadmin\tnull\ttrue\troot\u{1b}[2J"
        let queue = try DatabaseQueue(path: box.store)
        try queue.write { db in
            try db.execute(sql: "UPDATE changelog SET actor = ? WHERE key = 'a'", arguments: [forged])
            try db.execute(sql: "UPDATE kv_user SET value = ? WHERE key = 'b'", arguments: ["[1,\n\"\u{1b}[2J\"]"])
            // A write behind prefs' back is not logged (schema 5): plant the text in its record too.
            try db.execute(sql: "UPDATE changelog SET new = ? WHERE key = 'b'", arguments: ["[1,\n\"\u{1b}[2J\"]"])
        }
        let records = try box.runOK(["log", "--json"]).stdout.split(separator: "\n").count
        let log = try box.runOK(["log"])
        #expect(log.status == 0)
        #expect(records >= 2 && log.stdout.split(separator: "\n").count == records, "one line per record: \(log.stdout.debugDescription)")
        #expect(!log.stdout.contains("\u{1b}"), "no raw escape sequence")
        #expect(
            log.stdout.contains("\tmallory\\n99\\t2026-01-01T00:00:00Z\\tset\\tuser\\tadmin\\tnull\\ttrue\\troot\\x1b[2J\n"),
            "\(log.stdout)")
        for line in log.stdout.split(separator: "\n") {
            #expect(line.split(separator: "\t", omittingEmptySubsequences: false).count == 8, "\(line)")
        }
        let list = try box.runOK(["list", "user"])
        #expect(list.stdout == "a\t1\nb\t[1,\\n\"\\x1b[2J\"]\n", "\(list.stdout.debugDescription)")
    }

    @Test func logShowsWhoChangedWhatNewestFirst() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["--actor", "alice", "set", "switch", "beta", "true"])
        try box.runOK(["set", "switch", "beta", "false"], environment: ["PREFS_ACTOR": "ci-bot"])
        try box.runOK(["rm", "switch", "beta"], environment: ["USER": "bob", "PREFS_ACTOR": ""])
        try box.runOK(["import"], stdin: "{\"user\":{\"i\":1}}")
        let lines = try box.runOK(["log"]).stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(lines.count == 4)
        #expect(lines.map { String($0[2]) } == ["import", "rm", "set", "set"])
        #expect(lines.map { String($0[7]) }.dropFirst() == ["bob@" + String(lines[1][7].split(separator: "@")[1]), "ci-bot", "alice"])
        #expect(lines[2][5] == "true" && lines[2][6] == "false")
        #expect(try box.runOK(["log", "switch", "--limit", "1"]).stdout.contains("\trm\tswitch\tbeta\tfalse\t-\t"))
        let json = try box.runOK(["log", "--json", "--limit", "1"]).stdout
        #expect(
            json.hasPrefix("{\"seq\":4,\"time\":\"20")
                && json.hasSuffix(
                    "\"domain\":\"user\",\"key\":\"i\",\"op\":\"import\",\"new\":1,\"actor\":" + json.split(
                        separator: ",\"actor\":"
                    ).last!)
        )
        #expect(try box.runOK(["log", "--since", "1h"]).stdout.split(separator: "\n").count == 4)
        #expect(try box.runOK(["log", "--since", "2999-01-01T00:00:00Z"]).stdout.isEmpty)
        expectFailure(try box.runFailing(["log", "--since", "yesterday-ish"], status: 2), 2)
        try box.runOK(["log", "--retain", "2"])
        #expect(try box.runOK(["log"]).stdout.split(separator: "\n").count == 2)
        for i in 0..<5 { try box.runOK(["set", "user", "r\(i)", "\(i)"]) }
        #expect(try box.runOK(["log"]).stdout.split(separator: "\n").count == 2, "retention holds for new records")
    }
}

@Suite("history edge cases", .timeLimit(.minutes(5)), .ownThreads)
struct HistoryEdgeCaseTests {
    @Test func versionsNeverRepeatAfterARemoval() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "a", "1"])
        try box.runOK(["set", "user", "a", "2"])
        let before = try version(box, "a")
        try box.runOK(["rm", "user", "a"])
        try box.runOK(["set", "user", "a", "3"])
        #expect(try version(box, "a") > before, "no ABA: a re-created key gets a new version")
        expectFailure(try box.runFailing(["set", "user", "a", "4", "--if-version", "\(before)"], status: 5), 5)
    }

    @Test func aBatchIncrementNeverOverwritesAnotherProcessesValue() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "s", "5"])
        let process = box.process(["batch", "--window", "1s"])
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data("incr user s\n".utf8))
        Thread.sleep(forTimeInterval: 0.2)
        try box.runOK(["set", "user", "s", "\"text\""])
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 6, "\(stderr)")
        #expect(stderr.contains("increment of user/s skipped"))
        #expect(try box.runOK(["get", "user", "s"]).stdout == "text\n")
    }

    @Test func aWatcherStartingOnAnEmptyLogNoticesPrunedRecords() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["log", "--retain", "5"])
        let watcher = try BackgroundRun.watch(["watch"], box: box)
        let lines = (0..<10).map { "set user k\($0) \($0)" }.joined(separator: "\n") + "\n"
        try box.runOK(["batch"], stdin: lines)
        let finished = watcher.finish(timeout: 30)
        #expect(finished.status == 3 && finished.stderr.contains("pruned"), "\(finished)")
    }

    /// A log keeping 1,024 records or more is pruned in batches, so the file holds records
    /// beyond retention that `prefs log` does not show. Raising `--retain` must not bring
    /// them back: they were pruned as far as a user can tell.
    @Test func raisingRetentionDoesNotBringBackPrunedRecords() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["log", "--retain", "1024"])
        let keys = (0..<1024).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        try box.runOK(["import", "-"], stdin: "{\"user\": {\(keys)}}")
        for i in 1...10 { try box.runOK(["set", "user", "x", "\(i)"]) }
        let before = try box.runOK(["log"]).stdout.split(separator: "\n")
        #expect(before.count == 1024)
        #expect(before.last?.hasPrefix("11\t") == true, "\(before.last ?? "")")
        try box.runOK(["log", "--retain", "2000"])
        let after = try box.runOK(["log"]).stdout.split(separator: "\n")
        #expect(after.count == 1024, "raising retention showed \(after.count - 1024) records pruned before")
        #expect(after.last?.hasPrefix("11\t") == true, "\(after.last ?? "")")
        try box.runOK(["set", "user", "x", "11"])
        #expect(try box.runOK(["log"]).stdout.split(separator: "\n").count == 1025, "the raised retention keeps new records")
    }

    @Test func applyCanRemoveThenCreateInANewDomain() throws {
        let box = try Sandbox(inProcess: true)
        let document =
            "[{\"op\":\"rm\",\"domain\":\"newdom\",\"key\":\"a\"},{\"op\":\"set\",\"domain\":\"newdom\",\"key\":\"a\",\"value\":1}]"
        let result = try box.runOK(["apply"], stdin: document)
        #expect(result.status == 0, "\(result)")
        #expect(try box.runOK(["get", "newdom", "a"]).stdout == "1\n")
    }

    @Test func batchIncrementKeepsTheExpiry() throws {
        let box = try Sandbox(inProcess: true)
        try box.runOK(["set", "user", "t", "1", "--ttl", "1h"])
        try box.runOK(["batch"], stdin: "incr user t\n")
        #expect(try box.runOK(["get", "user", "t", "--show-meta"]).stdout.contains("\"expiresAt\":\"20"))
    }
}
