import Foundation
import MeridianIO

/// The command reference of the documentation: one Markdown article with every command's usage, modes, options and
/// examples, made from the same declarations as `--help` (`meridian --reference`; `scripts/docs.sh` adds it to the
/// documentation when it builds it, so a new command or option appears there by itself).
enum ReferencePage {
    /// The article.
    static func markdown(_ commands: [any Command.Type]) -> String {
        var lines = [
            "# Command reference", "",
            "Every `meridian` command with its modes, options and examples.", "",
            "## Overview", "",
            "This page is made from the commands' declarations, the same ones `meridian COMMAND --help` prints and the "
                + "parser reads, when the documentation is built (`meridian --reference`). Every command also takes "
                + "`--quiet` (no progress line). Exit codes: 0 success, 1 failure, 2 usage error.", "",
            "| Command | What it does |", "| --- | --- |",
        ]
        lines += commands.map { "| `meridian \($0.name)` | \(cell($0.summary)) |" }
        for command in commands { lines += [""] + section(command) }
        return lines.joined(separator: "\n")
    }

    /// One command's section.
    static func section(_ type: any Command.Type) -> [String] {
        let layout = CommandLayout(type)
        var lines = ["### meridian \(type.name)", "", escaped(type.summary) + ".", "", "```"]
        lines += layout.usageLines
        lines += ["```", ""]
        lines += paragraphs(type.discussion).flatMap { [escaped($0), ""] }
        if let selector = layout.modeArgument {
            lines += ["#### \(selector.placeholder)", "", "| \(selector.placeholder) | What it does |", "| --- | --- |"]
            lines += layout.modeLines.map { "| `\(code($0.synopsis))` | \(cell($0.summary)) |" }
            lines.append("")
        }
        lines += ["#### Options", "", "| Option | Value | Default | Applies to | Description |", "| --- | --- | --- | --- | --- |"]
        for d in layout.declarations {
            let applies = d.modes.tag
            lines.append("| `\(code(layout.left(d)))` | \(cell(d.valueSummary)) | \(cell(d.defaultText ?? "")) | "
                + "\(cell(applies)) | \(cell(d.help)) |")
        }
        if !type.examples.isEmpty { lines += ["", "#### Examples", "", "```bash"] + type.examples + ["```"] }
        return lines
    }

    /// Text wrapped for `--help` as paragraphs of one line each.
    static func paragraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").map {
            $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }.filter { !$0.isEmpty }
    }

    /// Text with Markdown's special characters escaped.
    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            if "\\*_|<>[]`#".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }

    /// Text for a table cell.
    static func cell(_ text: String) -> String { escaped(text) }

    /// Text for a code span in a table cell (only `|` needs escaping there).
    static func code(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
}
