import ArgumentParsing
import Archive

/// The SECURITY sections of `deck-archive.1` and `deck-unarchive.1`, with the limits taken
/// from ``ArchiveLimits/default`` so the page cannot drift from the code.
enum ArchiveSecurity {
    static var limitsText: String {
        let limits = ArchiveLimits.default
        return "at most \(limits.maxEntries) entries, "
            + "\(limits.maxEntrySize >> 30) GiB per entry and \(limits.maxTotalSize >> 30) GiB in all, "
            + "and an expansion ratio (bytes written per byte of archive) of at most \(limits.maxExpansionRatio) "
            + "once more than \(limits.expansionRatioThreshold >> 20) MiB have been written"
    }

    static var unarchiveSection: CommandConfiguration.Section {
        CommandConfiguration.Section("SECURITY", """
            Archives from other people are treated as hostile. Every entry header is checked before anything \
            is written, and refused with exit status 65 and a message naming the entry: names with .. \
            components, absolute names, backslashes or control characters; symbolic links and hard links; \
            device, fifo and socket entries; duplicate entries and entries inside a file; entries outside one \
            top-level <name>.sampledeck directory, or deeper than the package layout (files in it, and files \
            in its Media directory); more entries, larger sizes or more expansion than the limits. The limits \
            are \(limitsText); \(maxEntriesVariable) and \(maxSizeVariable) lower them. The same checks apply when \
            info, list, search, check or export read an archive, into a private temporary directory. Sizes are checked against what headers declare and again against the bytes \
            actually written, since headers can lie (zip bombs). Extraction uses libarchive's secure flags \
            (no .., no symlinks followed, no absolute paths, no overwriting) as well as these checks; files get \
            mode 0644 and directories 0755, owners and times are not restored. The deck is extracted into a \
            private directory inside the destination and checked before it is renamed into place, so a \
            refused archive leaves nothing behind, inside or outside the destination.
            """)
    }

    static var archiveSection: CommandConfiguration.Section {
        CommandConfiguration.Section("SECURITY", """
            The archive holds only the manifest, a snapshot of the store and the media files, as regular files \
            and directories under one top-level directory: no links, no device files, no lock or journal \
            files, no owners (uid and gid 0) and a fixed time. What deck unarchive refuses and its limits \
            (\(limitsText)) are described in deck-unarchive(1).
            """)
    }
}

extension ArchiveSecurity {
    static let maxEntriesVariable = "DECK_ARCHIVE_MAX_ENTRIES"
    static let maxSizeVariable = "DECK_ARCHIVE_MAX_SIZE"

    /// The limits archives are read with: ``ArchiveLimits/default``, lowered (never raised)
    /// by `DECK_ARCHIVE_MAX_ENTRIES` and `DECK_ARCHIVE_MAX_SIZE` (bytes) when set.
    static func limits(environment: [String: String] = Terminal.current.environment) -> ArchiveLimits {
        var limits = ArchiveLimits.default
        if let text = environment[maxEntriesVariable], let value = Int(text), value > 0 {
            limits.maxEntries = min(limits.maxEntries, value)
        }
        if let text = environment[maxSizeVariable], let value = Int64(text), value > 0 {
            limits.maxTotalSize = min(limits.maxTotalSize, value)
            limits.maxEntrySize = min(limits.maxEntrySize, value)
        }
        return limits
    }

    /// The ENVIRONMENT entries of commands that read archives.
    static var environment: [CommandConfiguration.EnvironmentVariable] {
        DeckTool.configuration.environment + [
            .init(maxEntriesVariable, "Lowers the most entries an archive may hold (default \(ArchiveLimits.default.maxEntries))."),
            .init(maxSizeVariable, "Lowers the most bytes an archive may expand to, in all and per entry (default \(ArchiveLimits.default.maxTotalSize >> 30) GiB)."),
        ]
    }
}
