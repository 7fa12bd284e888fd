#!/usr/bin/env python3
"""Generates what the package installs besides the programs, from one source each: the
programs' own --help (usage, summary, every option) and docs/cli.md (the commands, the events,
the exit statuses). Nothing here is kept by hand.

    package-docs.py man PROGRAM HELP_FILE CLI_MD VERSION > PROGRAM.1
    package-docs.py completion PROGRAM HELP_FILE CLI_MD > completions/PROGRAM

HELP_FILE holds `PROGRAM --help`'s output.
"""
import re
import sys


def parse_help(text: str):
    """(usage, summary, [(option, metavar, help)]) from a --help text."""
    usage_part, rest = text.split("\n\n", 1)
    summary, options_part = rest.split("\nOptions:\n", 1)
    options = []
    for line in options_part.splitlines():
        if not line.strip():
            continue
        match = re.match(r"  (--[a-z-]+)(?: (\S+))?(?:\s{2,}(.*))?$", line)
        if match:
            options.append([match.group(1), match.group(2) or "", match.group(3) or ""])
        elif options:
            options[-1][2] = (options[-1][2] + " " + line.strip()).strip()
    usage = " ".join(usage_part.replace("usage:", "", 1).split())
    return usage, " ".join(summary.split()), options


def section(markdown: str, program: str, title: str) -> str:
    """The text of `### title` under `## program` in cli.md."""
    part = markdown.split(f"\n## {program}\n", 1)[1].split("\n## ", 1)[0]
    return part.split(f"\n### {title}\n", 1)[1].split("\n### ", 1)[0]


def table_rows(text: str):
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            rows.append(cells)
    return rows[1:]  # without the header


# Characters outside ASCII as roff's own escapes, which every output device has (man renders
# with -Tascii where the locale is C or unset, and there groff knows no \[u2026]): the page reads
# the same in any locale. A character not listed here stops the generation with its name.
ROFF_CHARACTERS = {
    "\u2026": "...",
    "\u2014": "\\(em",
    "\u2013": "\\(en",
    "\u2192": "\\(->",
    "\u00d7": "\\(mu",
    "\u2264": "\\(<=",
    "\u2265": "\\(>=",
    "\u2019": "'",
    "\u201c": "\\(lq",
    "\u201d": "\\(rq",
    "\u00e4": "\\(:a",
    "\u00e5": "\\(oa",
    "\u00f6": "\\(:o",
}


def ascii_roff(text: str) -> str:
    """text with every non-ASCII character as a roff escape any output device renders."""
    out = []
    for char in text:
        if ord(char) < 128:
            out.append(char)
        elif char in ROFF_CHARACTERS:
            out.append(ROFF_CHARACTERS[char])
        else:
            raise SystemExit(f"package-docs: no roff escape for {char!r} (U+{ord(char):04X}); add it to ROFF_CHARACTERS")
    return "".join(out)


def roff(text: str) -> str:
    """Markdown inline text as roff: code in bold, escapes for roff's specials, ASCII only."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = re.sub(r"\*([^*]+)\*", r"\\fI\1\\fR", text)
    text = text.replace("-", "\\-")
    text = ascii_roff(text)
    return text if not text.startswith((".", "'")) else "\\&" + text


def man(program: str, help_text: str, markdown: str, version: str) -> str:
    usage, summary, options = parse_help(help_text)
    other = "relay-central" if program == "relay-peripheral" else "relay-peripheral"
    role = "peripheral" if program == "relay-peripheral" else "central"
    out = [
        f'.TH {program.upper()} 1 "" "relay {version}" "User Commands"',
        ".SH NAME",
        f"{program} \\- the {role} of the relay BLE messaging pair (BlueZ)",
        ".SH SYNOPSIS",
        f".B {program}",
        roff(usage.split(" ", 1)[1] if " " in usage else ""),
        ".SH DESCRIPTION",
        roff(summary.replace(" See docs/cli.md.", "")),
        ".SH OPTIONS",
    ]
    for name, metavar, text in options:
        out += [".TP", f"\\fB{roff(name)}\\fR" + (f" \\fI{roff(metavar)}\\fR" if metavar else ""), roff(text)]
    out.append(".SH COMMANDS")
    out.append("Typed at the prompt on a terminal, or read line by line from a pipe or file.")
    for command, what, *finishes in table_rows(section(markdown, program, "Commands")):
        out += [".TP", roff(command), roff(what) + (f" Finishes: {roff(finishes[0])}." if finishes else "")]
    out.append(".SH EVENTS")
    out.append("Every event is one line; with \\fB\\-\\-json\\fR one JSON object with \\fBevent\\fR, "
               "\\fBtime\\fR and these fields.")
    for name, fields, *when in table_rows(section(markdown, program, "Events")):
        out += [".TP", roff(name), roff(fields) + (f" ({roff(when[0])})" if when else "")]
    out += [
        ".SH EXIT STATUS",
        "0 when every scripted command succeeded, 1 otherwise, 64 for a mistake on the command line.",
        ".SH FILES",
        "/usr/share/doc/relay: the README, the command-line reference (cli.md), the wire protocol "
        "(protocol.md) and the workshop guide.",
        ".SH SEE ALSO",
        f".BR {other} (1),",
        ".BR bluetoothd (8),",
        ".BR bluetoothctl (1)",
    ]
    return "\n".join(out) + "\n"


def completion(program: str, help_text: str, markdown: str) -> str:
    _, _, options = parse_help(help_text)
    words = " ".join(name for name, _, _ in options)
    cases = []
    for name, metavar, _ in options:
        if "|" in metavar and metavar == metavar.lower() and name != "--adapter":
            choices = " ".join(metavar.split("|"))
            cases.append(f'    {name}) COMPREPLY=($(compgen -W "{choices}" -- "$cur")); return ;;')
        elif metavar in ("DIR",):
            cases.append(f'    {name}) COMPREPLY=($(compgen -d -- "$cur")); return ;;')
        elif name == "--adapter":
            cases.append(f'    {name}) COMPREPLY=($(compgen -W "$(ls /sys/class/bluetooth 2>/dev/null)" -- "$cur")); '
                         'return ;;')
        elif metavar:
            cases.append(f"    {name}) return ;;")
    function = "_" + program.replace("-", "_")
    return "\n".join([
        f"# bash completion for {program} (generated from its --help by scripts/package-docs.py)",
        f"{function}() {{",
        '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}',
        '  case "$prev" in',
        *cases,
        "  esac",
        f'  COMPREPLY=($(compgen -W "{words}" -- "$cur"))',
        "}",
        f"complete -F {function} {program}",
        "",
    ])


def main():
    kind, program, help_file, cli_md = sys.argv[1:5]
    help_text = open(help_file, encoding="utf-8").read()
    markdown = open(cli_md, encoding="utf-8").read()
    if kind == "man":
        sys.stdout.write(man(program, help_text, markdown, sys.argv[5]))
    elif kind == "completion":
        sys.stdout.write(completion(program, help_text, markdown))
    else:
        sys.exit(f"package-docs: unknown kind {kind!r} (man, completion)")


if __name__ == "__main__":
    main()
