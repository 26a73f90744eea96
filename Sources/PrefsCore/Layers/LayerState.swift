import Synchronization

/// The layers a stack and its databases read, shared so that ``KeyValueStack/reloadLayers()``
/// replaces them for reads and for the locks the write path enforces at once.
final class LayerState: Sendable {
    /// The layers, the stamp of their files when ``reload()`` last looked (nil before:
    /// opening a stack costs no `stat`), and how many times a reload changed them.
    private let value: Mutex<(layers: Layers, stamp: [Layers.FileStamp]?, generation: Int)>
    /// The environment the layers were read for; nil when they were given (``KeyValueStack/Options/layers``)
    /// and are not read again.
    let environment: [String: String]?

    init(_ layers: Layers, environment: [String: String]?) {
        value = Mutex((layers, nil, 0))
        self.environment = environment
    }

    /// The layers now.
    var current: Layers { value.withLock { $0.layers } }

    /// The lock that covers `domain`/`key` now, looked up without copying the layers (every
    /// queued write asks it).
    func lock(in domain: Domain, forKey key: String) -> LayerLock? {
        value.withLock { $0.layers.lock(in: domain, forKey: key) }
    }

    /// How many times ``reload()`` replaced the layers: a follower that saw another number
    /// reads again (a reload another follower made counts too).
    var generation: Int { value.withLock { $0.generation } }

    /// One reload at a time: two at once could store an older reading over a newer one.
    private let reloading = Mutex(())

    /// Reads the files again when their stamp moved (a file added, removed, replaced or
    /// written); whether the layers changed. Callers may overlap: reloads run one at a time.
    func reload() -> Bool {
        reloading.withLock { _ in reloadNow() }
    }

    private func reloadNow() -> Bool {
        guard let environment else { return false }
        let variable: (String) -> String? = { environment[$0] }
        let stamp = Layers.stamp(variable: variable)
        guard value.withLock({ $0.stamp != stamp }) else { return false }
        let fresh = Layers.load(variable: variable)
        return value.withLock { current in
            current.stamp = stamp
            guard current.layers != fresh else { return false }
            current.layers = fresh
            current.generation += 1
            return true
        }
    }
}
