"""Neo4j's own Cypher 5 grammar, run by ANTLR's Python runtime: `parse(query)` -> parse tree.

`engine/grammar/` holds the two interpreter files (`*.interp`: vocabulary, rule names and the
serialized ATN) that ANTLR wrote when Neo4j built its Cypher 5 parser; they ship in the
sources jar of `org.neo4j:cypher-v5-antlr-parser` on Maven Central (Apache-2.0, see
`engine/grammar/NOTICE`), and `make cypher-grammar` fetches them again for another Neo4j
version. Running the ATN through ANTLR's simulators gives the same parse as Neo4j's generated
parser, without generated code: the grammar has no actions and no semantic predicates.

The Python runtime's own `ParserInterpreter` does not run (it indexes a set and matches an
interval set as a token type), so `_Interpreter` below drives the parser ATN itself.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from antlr4 import CommonTokenStream, InputStream, Lexer, Parser
from antlr4.atn.ATN import ATN
from antlr4.atn.ATNDeserializer import ATNDeserializer
from antlr4.atn.ATNState import ATNState
from antlr4.atn.LexerATNSimulator import LexerATNSimulator
from antlr4.atn.ParserATNSimulator import ParserATNSimulator
from antlr4.atn.Transition import Transition
from antlr4.dfa.DFA import DFA
from antlr4.error.ErrorListener import ErrorListener
from antlr4.error.Errors import RecognitionException
from antlr4.ParserRuleContext import InterpreterRuleContext, ParserRuleContext
from antlr4.PredictionContext import PredictionContextCache
from antlr4.Token import Token

__all__ = ["CypherSyntaxError", "parse", "rule_name"]


class CypherSyntaxError(ValueError):
    """The query is not Cypher 5 as Neo4j's grammar reads it."""

    def __init__(self, line: int, column: int, message: str) -> None:
        self.line, self.column = line, column
        super().__init__(f"line {line}, column {column + 1}: {message}")


@dataclass(frozen=True)
class _Grammar:
    literal_names: list[str]
    symbolic_names: list[str]
    rule_names: list[str]
    mode_names: list[str]
    channel_names: list[str]
    atn: ATN
    decisions: list[DFA]


def _read(name: str) -> _Grammar:
    """One `.interp` file: sections headed `<title>:`, one name a line, the ATN last."""
    sections: dict[str, list[str]] = {}
    current = ""
    for line in files("engine.grammar").joinpath(name).read_text(encoding="utf-8").splitlines():
        if line.endswith(":") and not line.startswith("'"):
            current = line[:-1]
            sections[current] = []
        elif line:
            sections[current].append(line)
    atn = ATNDeserializer().deserialize([int(n) for n in sections["atn"][0].strip("[]").split(",")])

    def names(title: str) -> list[str]:
        return ["<INVALID>" if n == "null" else n for n in sections.get(title, [])]

    return _Grammar(
        literal_names=names("token literal names"),
        symbolic_names=names("token symbolic names"),
        rule_names=sections["rule names"],
        mode_names=sections.get("mode names", []),
        channel_names=sections.get("channel names", []),
        atn=atn,
        decisions=[DFA(state, i) for i, state in enumerate(atn.decisionToState)],
    )


@cache
def _grammars() -> tuple[_Grammar, _Grammar]:
    return _read("Cypher5Lexer.interp"), _read("Cypher5Parser.interp")


class _Raise(ErrorListener):  # type: ignore[misc]
    def syntaxError(self, recognizer: Any, symbol: Any, line: int, column: int, msg: str,
                    e: Any) -> None:  # fmt: skip
        raise CypherSyntaxError(line, column, msg)


def _lexer(text: str, grammar: _Grammar) -> Lexer:
    lexer = Lexer(InputStream(text))
    lexer.atn = grammar.atn
    lexer.literalNames, lexer.symbolicNames = grammar.literal_names, grammar.symbolic_names
    lexer.ruleNames, lexer.modeNames = grammar.rule_names, grammar.mode_names
    lexer.channelNames = grammar.channel_names
    lexer.grammarFileName = "Cypher5Lexer.g4"
    lexer._interp = LexerATNSimulator(lexer, grammar.atn, grammar.decisions,
                                      PredictionContextCache())  # fmt: skip
    lexer.removeErrorListeners()
    lexer.addErrorListener(_Raise())
    return lexer


class _Interpreter(Parser):  # type: ignore[misc]
    """Walks the parser ATN as generated code would, building `InterpreterRuleContext`s."""

    state: int

    def __init__(self, tokens: CommonTokenStream, grammar: _Grammar) -> None:
        super().__init__(tokens)
        self.literalNames, self.symbolicNames = grammar.literal_names, grammar.symbolic_names
        self.ruleNames = grammar.rule_names
        self.grammar = grammar
        self._interp = ParserATNSimulator(self, grammar.atn, grammar.decisions,
                                          PredictionContextCache())  # fmt: skip
        self.removeErrorListeners()
        self.addErrorListener(_Raise())

    @property
    def atn(self) -> ATN:
        return self.grammar.atn

    def run(self, rule: int) -> ParserRuleContext:
        atn = self.grammar.atn
        start = atn.ruleToStartState[rule]
        root = InterpreterRuleContext(None, ATNState.INVALID_STATE_NUMBER, rule)
        self.enterRule(root, start.stateNumber, rule)
        while True:
            state: ATNState = atn.states[self.state]
            if state.stateType != ATNState.RULE_STOP:
                self._step(state)
                continue
            done = self._ctx.invokingState == ATNState.INVALID_STATE_NUMBER
            self.exitRule()
            if done:
                return root
            self.state = atn.states[self.state].transitions[0].followState.stateNumber

    def _step(self, state: ATNState) -> None:
        edge = 1
        if len(state.transitions) > 1:
            edge = self._interp.adaptivePredict(self._input, state.decision, self._ctx)
        transition = state.transitions[edge - 1]
        kind = transition.serializationType
        if kind == Transition.ATOM:
            self.match(transition.label_)
        elif kind in (Transition.RANGE, Transition.SET, Transition.NOT_SET, Transition.WILDCARD):
            if not transition.matches(self._input.LA(1), 1, 0x10FFFF):
                self._errHandler.recoverInline(self)
            self.matchWildcard()
        elif kind == Transition.RULE:
            target = transition.target
            context = InterpreterRuleContext(self._ctx, state.stateNumber, target.ruleIndex)
            self.enterRule(context, target.stateNumber, target.ruleIndex)
        elif kind != Transition.EPSILON:  # the grammar has no predicates, actions or precedence
            raise CypherSyntaxError(0, 0, f"unsupported grammar transition {kind}")
        self.state = transition.target.stateNumber


# ANTLR's prediction caches (the DFAs) are shared and not thread-safe.
_LOCK = threading.Lock()


def parse(query: str) -> ParserRuleContext:
    """The parse tree of `query` from the `statements` rule, or CypherSyntaxError."""
    lexer_grammar, parser_grammar = _grammars()
    with _LOCK:
        tokens = CommonTokenStream(_lexer(query, lexer_grammar))
        parser = _Interpreter(tokens, parser_grammar)
        try:
            return parser.run(parser_grammar.rule_names.index("statements"))
        except RecognitionException as exc:
            token = exc.offendingToken
            if token is None or token.type == Token.EOF:
                raise CypherSyntaxError(0, len(query), "unexpected end of query") from None
            raise CypherSyntaxError(token.line, token.column, f"unexpected {token.text!r}") from None


def rule_name(context: ParserRuleContext) -> str:
    """The grammar rule a parse-tree node stands for."""
    return _grammars()[1].rule_names[int(context.ruleIndex)]
