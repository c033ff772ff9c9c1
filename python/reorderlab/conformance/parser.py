"""From a script's text to its model (:mod:`.model`).

The subset of packetdrill's language that TCP loss-recovery tests use
(``docs/conformance.md`` lists it); anything else is a
:class:`~reorderlab.conformance.model.ScriptError` naming its file, line and
column. The grammar, in the order :class:`_Parser` reads it::

    script  := option* event*
    event   := time action
    time    := '*' | ['+'] NUM ['~' ['+'] NUM] ['...' NUM]
    action  := segment | syscall | COMMAND | CODE
    segment := ('<' | '>') flags NUM ':' NUM '(' NUM ')' ['ack' NUM] ['win' NUM]
               ['<' (option (',' option)* | '...') '>']
    option  := 'nop' | 'eol' | 'mss' NUM | 'wscale' NUM | 'sackOK'
               | 'sack' (NUM ':' NUM)+ | 'TS' 'val' NUM 'ecr' NUM
    syscall := WORD '(' [expr (',' expr)*] ')' '=' ('...' | ['-'] NUM) [WORD ['(' ... ')']]
    CODE    := '%{' ('assert' operand OP operand [',' text])* '}%'
"""

from __future__ import annotations

import re
from pathlib import Path

from .info import CA_STATES, INFO_FIELDS
from .lexer import Token, comment_lines, tokenize
from .model import (
    FLAG_BITS,
    AssertBlock,
    Check,
    Command,
    Direction,
    Event,
    EventTime,
    Expr,
    Pos,
    Script,
    ScriptError,
    SegmentSpec,
    Syscall,
    TcpOption,
    TimeKind,
)

#: Script options (``--name=value`` at the top) this interpreter reads.
KNOWN_OPTIONS = ("tolerance_usecs", "mss")
#: The socket calls of the subset.
SYSCALLS = (
    "socket",
    "setsockopt",
    "bind",
    "listen",
    "accept",
    "connect",
    "write",
    "close",
    "fcntl",
)
_XFAIL = re.compile(r"^\s*//\s*xfail-(sim|kernel)\s*:\s*(.+?)\s*$")
_ASSERT = re.compile(r"^assert\s+(\w+)\s*(==|!=|<=|>=|<|>)\s*(-?\w+)\s*(,.*)?$")


def parse_file(path: str | Path) -> Script:
    """Parse a script file; a :class:`ScriptError` for a malformed one (and
    for one that cannot be read)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(Pos(str(p), 1, 1), f"cannot read the script: {exc}") from None
    return parse_text(text, str(p))


def parse_text(text: str, path: str = "<script>") -> Script:
    script = _Parser(path, tokenize(path, text)).script()
    script.header = "\n".join(comment_lines(text))
    for line in text.splitlines():
        if m := _XFAIL.match(line):
            script.xfail[m.group(1)] = m.group(2)
    return script


class _Parser:
    def __init__(self, path: str, tokens: list[Token]) -> None:
        self.path = path
        self.toks = tokens
        self.i = 0

    # -- tokens ---------------------------------------------------------------

    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, kind: str, text: str | None = None, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == kind and (text is None or t.text == text)

    def here(self) -> Pos:
        t = self.peek()
        if t is not None:
            return t.pos
        if self.toks:
            last = self.toks[-1].pos
            return Pos(self.path, last.line, last.col + len(self.toks[-1].text))
        return Pos(self.path, 1, 1)

    def fail(self, message: str, pos: Pos | None = None) -> ScriptError:
        t = self.peek()
        found = "the end of the script" if t is None else str(t)
        return ScriptError(pos or self.here(), f"{message}, found {found}")

    def take(self, kind: str, what: str, text: str | None = None) -> Token:
        if not self.at(kind, text):
            raise self.fail(f"expected {what}")
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def number(self, what: str) -> tuple[int, Pos]:
        tok = self.take("num", what)
        try:
            return int(tok.text, 0), tok.pos
        except ValueError:
            raise ScriptError(tok.pos, f"expected an integer {what}, got {tok.text}") from None

    def seconds(self) -> float:
        return float(self.take("num", "a time in seconds").text)

    # -- script ---------------------------------------------------------------

    def script(self) -> Script:
        s = Script(self.path)
        while self.at("option"):
            tok = self.take("option", "an option")
            name, _, value = tok.text[2:].partition("=")
            if name not in KNOWN_OPTIONS:
                raise ScriptError(
                    tok.pos, f"unknown option --{name} (known: {', '.join(KNOWN_OPTIONS)})"
                )
            s.options[name] = value
        while (nxt := self.peek()) is not None:
            if nxt.kind == "command":
                self.i += 1
                cmd = Command(nxt.text.strip(), nxt.pos)
                (s.cleanup if s.events else s.preamble).append(cmd)
                continue
            if s.cleanup:
                raise self.fail("an untimed command comes before the events or after them all")
            s.events.append(self.event())
        return s

    def event(self) -> Event:
        pos = self.here()
        time, end = self.time()
        tok = self.peek()
        if tok is None:
            raise self.fail("expected an action after the time")
        action: SegmentSpec | Syscall | Command | AssertBlock
        if tok.kind in ("<", ">"):
            action = self.segment()
        elif tok.kind == "command":
            self.i += 1
            action = Command(tok.text.strip(), tok.pos)
        elif tok.kind == "code":
            self.i += 1
            action = self.code(tok)
        elif tok.kind == "word" and self.at("(", k=1):
            action = self.syscall(end)
        else:
            raise self.fail("expected a segment ('<' or '>'), a socket call, a command or %{ }%")
        if end is not None and not isinstance(action, Syscall):
            raise ScriptError(pos, "only a socket call has an end time ('...')")
        return Event(time, action, pos)

    def time(self) -> tuple[EventTime, float | None]:
        if self.at("*"):
            self.i += 1
            return EventTime(TimeKind.ANY), None
        relative = self.at("+")
        if relative:
            self.i += 1
        if not self.at("num"):
            raise self.fail("expected an event time (0.1, +0.1, 0.1~0.2 or *)")
        start = self.seconds()
        end = None
        if self.at("~"):
            self.i += 1
            if relative:
                self.take("+", "'+' (a relative range is +t1~+t2)")
            elif self.at("+"):
                raise self.fail("an absolute range is t1~t2")
            end = self.seconds()
            if end < start:
                raise ScriptError(self.here(), f"the range ends ({end:g}) before it starts")
        kind = TimeKind.RELATIVE if relative else TimeKind.ABSOLUTE
        blocking_end = None
        if self.at("..."):
            self.i += 1
            blocking_end = self.seconds() - (0.0 if relative else start)
        return EventTime(kind, start, end), blocking_end

    # -- segments -------------------------------------------------------------

    def segment(self) -> SegmentSpec:
        tok = self.toks[self.i]
        self.i += 1
        direction = Direction(tok.text)
        flags = self.flags()
        seq, _ = self.number("start sequence number (seq:end(len))")
        self.take(":", "':' in seq:end(len)")
        end, end_pos = self.number("end sequence number")
        self.take("(", "'(' in seq:end(len)")
        length, _ = self.number("length")
        self.take(")", "')' in seq:end(len)")
        if (end - seq) % (1 << 32) != length:
            raise ScriptError(end_pos, f"{seq}:{end} is {end - seq} bytes, not ({length})")
        ack = win = None
        if self.at("word", "ack"):
            self.i += 1
            ack, _ = self.number("acknowledgment number")
        if self.at("word", "win"):
            self.i += 1
            win, _ = self.number("window")
        options: tuple[TcpOption, ...] | None = ()
        if self.at("<"):
            options = self.options()
        if ack is not None and not flags & FLAG_BITS["."]:
            raise ScriptError(tok.pos, "a segment with 'ack' needs the ACK flag ('.')")
        return SegmentSpec(direction, flags, seq, end, length, ack, win, options, tok.pos)

    def flags(self) -> int:
        tok = self.peek()
        if tok is not None and tok.kind in (".", "-"):
            self.i += 1
            return FLAG_BITS["."] if tok.kind == "." else 0
        word = self.take("word", "TCP flags (S, S., ., P., F., R, ...)")
        bits = 0
        for ch in word.text:
            if ch not in FLAG_BITS or ch == ".":
                raise ScriptError(word.pos, f"unknown TCP flag {ch!r} in {word.text!r}")
            bits |= FLAG_BITS[ch]
        if self.at("."):
            self.i += 1
            bits |= FLAG_BITS["."]
        return bits

    def options(self) -> tuple[TcpOption, ...] | None:
        self.take("<", "'<'")
        if self.at("..."):
            self.i += 1
            self.take(">", "'>' after '<...'")
            return None
        out = [self.option()]
        while self.at(","):
            self.i += 1
            out.append(self.option())
        self.take(">", "',' or '>' in the options")
        return tuple(out)

    def option(self) -> TcpOption:
        tok = self.take("word", "a TCP option (nop, mss, wscale, sackOK, sack, TS)")
        name = tok.text
        if name in ("nop", "eol", "sackOK"):
            return TcpOption(name)
        if name in ("mss", "wscale"):
            return TcpOption(name, self.number(f"{name} value")[0])
        if name == "sack":
            blocks = []
            while self.at("num"):
                a, _ = self.number("SACK block start")
                self.take(":", "':' in a SACK block")
                b, _ = self.number("SACK block end")
                blocks.append((a, b))
            if not blocks:
                raise self.fail("expected SACK blocks (a:b ...)")
            return TcpOption("sack", blocks=tuple(blocks))
        if name == "TS":
            self.take("word", "'val'", "val")
            val, _ = self.number("TS val")
            self.take("word", "'ecr'", "ecr")
            ecr, _ = self.number("TS ecr")
            return TcpOption("TS", val, ecr=ecr)
        raise ScriptError(tok.pos, f"unsupported TCP option {name!r}")

    # -- socket calls ---------------------------------------------------------

    def syscall(self, end: float | None) -> Syscall:
        name = self.take("word", "a socket call")
        if name.text not in SYSCALLS:
            raise ScriptError(
                name.pos,
                f"unsupported socket call {name.text!r} (supported: {', '.join(SYSCALLS)})",
            )
        self.take("(", "'('")
        args: list[Expr] = []
        if not self.at(")"):
            args.append(self.expr())
            while self.at(","):
                self.i += 1
                args.append(self.expr())
        self.take(")", "',' or ')' in the arguments")
        self.take("=", "'=' and the expected result")
        result: int | None
        if self.at("..."):
            self.i += 1
            result = None
        else:
            negative = self.at("-")
            if negative:
                self.i += 1
            value, _ = self.number("result")
            result = -value if negative else value
        errno = None
        if self.at("word"):
            errno = self.take("word", "an errno").text
            if self.at("("):
                self.skip_balanced("(", ")")
        return Syscall(name.text, tuple(args), result, errno, name.pos, end)

    def skip_balanced(self, open_: str, close: str) -> str:
        start = self.here()
        depth = 0
        parts = []
        while True:
            tok = self.peek()
            if tok is None:
                raise ScriptError(start, f"{open_!r} is not closed")
            self.i += 1
            depth += tok.kind == open_
            depth -= tok.kind == close
            parts.append(tok.text)
            if depth == 0:
                return " ".join(parts)

    def expr(self) -> Expr:
        tok = self.peek()
        if tok is None:
            raise self.fail("expected an argument")
        if tok.kind == "...":
            self.i += 1
            return Expr("ellipsis", None, tok.pos)
        if tok.kind in ("num", "-"):
            negative = tok.kind == "-"
            if negative:
                self.i += 1
            value, _ = self.number("integer argument")
            return Expr("int", -value if negative else value, tok.pos)
        if tok.kind == "string":
            self.i += 1
            return Expr("string", tok.text, tok.pos)
        if tok.kind == "[":
            self.i += 1
            items: list[Expr] = []
            while not self.at("]"):
                items.append(self.expr())
                if not self.at("]"):
                    self.take(",", "',' or ']'")
            self.i += 1
            return Expr("array", tuple(items), tok.pos)
        if tok.kind == "{":
            return Expr("struct", self.skip_balanced("{", "}"), tok.pos)
        if tok.kind == "word":
            words = [self.take("word", "a symbol").text]
            while self.at("|"):
                self.i += 1
                words.append(self.take("word", "a symbol after '|'").text)
            return Expr("symbol", "|".join(words), tok.pos)
        raise self.fail("expected an argument")

    # -- %{ }% ----------------------------------------------------------------

    def code(self, tok: Token) -> AssertBlock:
        checks = []
        for k, raw in enumerate(tok.text.split("\n")):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            col = (raw.index(line[0]) + 1) + (tok.pos.col + 2 if k == 0 else 0)
            pos = Pos(self.path, tok.pos.line + k, col)
            checks.append(_check(line, pos))
        if not checks:
            raise ScriptError(tok.pos, "a %{ }% block without an assert")
        return AssertBlock(tuple(checks), tok.pos)


def _operand(text: str, pos: Pos, left: bool) -> int | str:
    if text.startswith("tcpi_"):
        name = text[5:]
        if name not in INFO_FIELDS:
            raise ScriptError(
                pos,
                f"unsupported tcp_info field {text} (supported: "
                f"{', '.join('tcpi_' + f for f in INFO_FIELDS)})",
            )
        return name
    if left:
        raise ScriptError(pos, f"an assert starts with a tcpi_ field, got {text!r}")
    if text in CA_STATES:
        return CA_STATES[text]
    try:
        return int(text, 0)
    except ValueError:
        raise ScriptError(
            pos, f"expected a number, a TCP_CA_ state or a tcpi_ field, got {text!r}"
        ) from None


def _check(line: str, pos: Pos) -> Check:
    m = _ASSERT.match(line)
    if m is None:
        raise ScriptError(
            pos, f"only 'assert tcpi_FIELD OP VALUE[, ...]' lines are supported: {line!r}"
        )
    field = _operand(m.group(1), pos, True)
    assert isinstance(field, str)
    return Check(field, m.group(2), _operand(m.group(3), pos, False), pos, line)
