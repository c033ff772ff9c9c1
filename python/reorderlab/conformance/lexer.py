"""The tokens of a packetdrill script, each with its line and column.

The language is free-form (line breaks are blanks), with comments ``//``
to the end of the line and ``/* ... */``. Tokens: numbers (``3``, ``0.1``,
``.25``, ``0x10``), words (``sackOK``, ``SOCK_STREAM``, ``P``), strings in
double quotes, shell commands in back quotes, ``%{ ... }%`` blocks,
options ``--name=value`` (at the top of a script), the ellipsis ``...`` and
the punctuation ``< > : ( ) , [ ] { } = ~ + * | - . !``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Pos, ScriptError


@dataclass(frozen=True)
class Token:
    kind: str  # "num" | "word" | "string" | "command" | "code" | "option" | "..." | punct
    text: str
    pos: Pos

    def __str__(self) -> str:
        return repr(self.text) if self.kind not in ("command", "code") else self.kind


_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|\d+\.\d*|\.\d+|\d+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPTION = re.compile(r"--[A-Za-z_][A-Za-z0-9_-]*(=[^\s]*)?")
_PUNCT = set("<>:(),[]{}=~+*|-.!;")


class _Cursor:
    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text
        self.i, self.line, self.col = 0, 1, 1

    def pos(self) -> Pos:
        return Pos(self.path, self.line, self.col)

    def advance(self, n: int) -> str:
        chunk = self.text[self.i : self.i + n]
        for ch in chunk:
            if ch == "\n":
                self.line, self.col = self.line + 1, 1
            else:
                self.col += 1
        self.i += n
        return chunk

    def rest(self) -> str:
        return self.text[self.i :]


def _until(cur: _Cursor, start: Pos, close: str, what: str) -> str:
    at = cur.text.find(close, cur.i)
    if at < 0:
        raise ScriptError(start, f"{what} is not closed (no {close!r} follows)")
    body = cur.advance(at - cur.i)
    cur.advance(len(close))
    return body


def tokenize(path: str, text: str) -> list[Token]:
    """The tokens of ``text``; a :class:`ScriptError` at the first character
    that starts none."""
    cur = _Cursor(path, text)
    out: list[Token] = []
    while cur.i < len(text):
        ch = text[cur.i]
        if ch.isspace():
            cur.advance(1)
            continue
        pos = cur.pos()
        rest = cur.rest()
        if rest.startswith("//"):
            end = text.find("\n", cur.i)
            cur.advance((len(text) if end < 0 else end) - cur.i)
        elif rest.startswith("/*"):
            cur.advance(2)
            _until(cur, pos, "*/", "comment")
        elif rest.startswith("%{"):
            cur.advance(2)
            out.append(Token("code", _until(cur, pos, "}%", "%{ block"), pos))
        elif ch == "`":
            cur.advance(1)
            out.append(Token("command", _until(cur, pos, "`", "command"), pos))
        elif ch == '"':
            cur.advance(1)
            out.append(Token("string", _until(cur, pos, '"', "string"), pos))
        elif rest.startswith("..."):
            out.append(Token("...", cur.advance(3), pos))
        elif rest.startswith("--") and (m := _OPTION.match(rest)):
            out.append(Token("option", cur.advance(m.end()), pos))
        elif m := _NUMBER.match(rest):
            out.append(Token("num", cur.advance(m.end()), pos))
        elif m := _WORD.match(rest):
            out.append(Token("word", cur.advance(m.end()), pos))
        elif ch in _PUNCT:
            out.append(Token(ch, cur.advance(1), pos))
        else:
            raise ScriptError(pos, f"unexpected character {ch!r}")
    return out


def comment_lines(text: str) -> list[str]:
    """The ``//`` comment lines at the top of a script (before its first
    token), without the slashes: the script's header."""
    lines: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            if lines:
                break
            continue
        if not s.startswith("//"):
            break
        lines.append(s[2:].strip())
    return lines
