import FoundationEssentials

extension KeyValueStack {
    /// How often a live value looks for other processes' commits while no file-system
    /// notification is available.
    static let liveValuePollInterval: Duration = .milliseconds(20)

    /// A wake-up each time a committed change of the key `filter` names may have happened,
    /// from this process or any other, or the project or system layer files changed: the one
    /// place live values learn of changes. Other processes' commits arrive as ``watch(_:interval:)``
    /// reads them, when the store's file-system notifications wake its ``StoreChangeMonitor``,
    /// which also watches the directories of the layer files (as for `prefs serve`): a wake
    /// that finds them changed reads them again (``reloadLayers()``). This stack's own commits
    /// wake it at once.
    ///
    /// The stream ends with an error when the store cannot be read.
    func commitSignals(_ filter: LogFilter) -> AsyncThrowingStream<Void, any Error> {
        // Started before the caller reads the current value: a commit made in between wakes
        // it, and so does a layer edit made in between (the generation is taken now).
        let start = Result { () throws -> (StoreChangeMonitor, LogPoller) in
            (try changeMonitor(pollInterval: Self.liveValuePollInterval), try LogPoller(self, filter: filter))
        }
        let seen = layerState.generation
        let own = changes(in: filter.domain, forKey: filter.key)
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let fromLog = Task {
                do {
                    let (monitor, first) = try start.get()
                    var poller = first
                    var generation = seen
                    while !Task.isCancelled {
                        let page = try poller.poll()
                        if !page.records.isEmpty { continuation.yield() }
                        // Another follower of this stack may have reloaded them: the
                        // generation tells.
                        _ = self.layerState.reload()
                        let now = self.layerState.generation
                        if now != generation {
                            generation = now
                            continuation.yield()
                        }
                        if page.caughtUp, await monitor.next() == .cancelled { break }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            let fromStack = Task {
                for await _ in own { continuation.yield() }
            }
            continuation.onTermination = { _ in
                fromLog.cancel()
                fromStack.cancel()
            }
        }
    }

    /// The readings of a typed key as it changes: the current one first, then one after
    /// every committed change of the key by any process (this one, the `prefs` command,
    /// another app, sync) and every edit of the project or system layer files (``Layers``:
    /// a value added to `.prefs.json`, a lock added), without repeats. A stored value that does not decode yields the
    /// default with ``KeyReading/failure`` set (reason
    /// `PrefsError/Reason/typeMismatch(expected:)`); a store that cannot be read yields a
    /// reading with the failure and is tried again. A store file replaced under it (a file
    /// renamed over it), moved or removed yields a reading with that failure, then the
    /// readings of the file now at the path.
    ///
    /// ```swift
    /// for await reading in stack.readings(of: .volume) {
    ///     if let failure = reading.failure { print("ignored:", failure.message) }
    ///     print(reading.value)
    /// }
    /// ```
    /// The stream ends when the task iterating it is cancelled. Keys of the `memory`
    /// domain are followed for this stack's writes only (the memory tier keeps no change log).
    public func readings<Value>(of key: Key<Value>) -> AsyncStream<KeyReading<Value>> {
        AsyncStream(bufferingPolicy: .bufferingNewest(64)) { continuation in
            let task = Task {
                var last: String?
                func emit() {
                    let reading = self.reading(key)
                    let identity = (reading.failure.map { "!\($0.message)|" } ?? "") + (reading.json?.compactText ?? "")
                    guard identity != last else { return }
                    last = identity
                    continuation.yield(reading)
                }
                while !Task.isCancelled {
                    let signals = commitSignals(LogFilter(domain: key.domain, key: key.name))
                    emit()
                    do {
                        for try await _ in signals { emit() }
                    } catch {
                        // A store file replaced under the watch: read the new one from now on.
                        _ = self.reopenStoreIfReplaced()
                        let failure = (error as? PrefsError) ?? PrefsError(.storeUnreadable, "\(error)")
                        let identity = "!!\(failure.message)"
                        if identity != last {
                            last = identity
                            continuation.yield(
                                KeyReading(
                                    value: key.defaultValue, origin: .default, failure: failure.naming(key.domain, key.name), json: nil))
                        }
                        try? await Task.sleep(for: .milliseconds(250))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The values of a typed key as it changes: the current value first, then the value
    /// after every committed change of the key by any process (this one, the `prefs`
    /// command, another app, sync) and every edit of the project or system layer files,
    /// without repeats; absent reads as the default.
    ///
    /// A value another writer stored that does not decode as `Value` is reported: the
    /// stream ends with a `PrefsError` of kind `invalidValue` (reason
    /// `PrefsError/Reason/typeMismatch(expected:)`, naming the key), as it does when the
    /// store cannot be read. Use ``readings(of:)`` for a stream that reads on through such
    /// values.
    ///
    /// ```swift
    /// Task {
    ///     for try await volume in stack.values(of: .volume) { print("volume is now", volume) }
    /// }
    /// ```
    public func values<Value>(of key: Key<Value>) -> AsyncThrowingStream<Value, any Error> {
        let readings = readings(of: key)
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(64)) { continuation in
            let task = Task {
                for await reading in readings {
                    if let failure = reading.failure {
                        continuation.finish(throwing: failure)
                        return
                    }
                    continuation.yield(reading.value)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
