/// "Did you mean ...?" for mistyped command and option names.
public enum NameSuggestion {
    /// The shortest of `names` the typed text (3 characters or more) is a prefix of, else the
    /// closest name (edit distance with transpositions, at most 2 and less than the name's
    /// length); nil when nothing is close.
    public static func closest(to name: String, among names: [String]) -> String? {
        let typed = Array(name.lowercased())
        guard !typed.isEmpty, typed.count <= 64 else { return nil }
        if typed.count >= 3, let extended = names.filter({ $0.hasPrefix(name) }).min(by: { $0.count < $1.count }) {
            return extended
        }
        var best: (name: String, distance: Int)?
        for candidate in names {
            let distance = editDistance(typed, Array(candidate))
            if distance <= 2, distance < candidate.count, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Optimal-string-alignment distance (insert, delete, substitute, swap neighbours).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, table[i - 2][j - 2] + 1)
                }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
    }
}
