"""The engine's exceptions: one tree under :class:`EngineError`.

Every exception the engine raises derives from ``EngineError``; each class lives beside
the code that raises it, and keeps the built-in base it had (``ValueError``,
``RuntimeError``), so an ``except ValueError`` around a parser still catches it::

    EngineError
    ├── BundleError (ValueError)        intake: a bundle that breaks the input rules
    │   └── UnstorableValue             intake: parsed JSON no column can store (NUL, …)
    ├── CommandInputError               cli: input ``redline check`` cannot use (exit 2)
    ├── FixBlockError (ValueError)      fixes: a malformed ``<FIX>`` block
    ├── CalculatorError (ValueError)    calculator: an expression refused or not computable
    ├── LLMConfigError (ValueError)     llm.settings: ``REDLINE_LLM_*`` cannot be read
    ├── ProviderError                   llm.provider: a chat request that did not complete
    ├── OutboundRefused (ValueError)    outbound: a URL the outbound-address rule refuses
    ├── OutboundError                   outbound: a request to an allowed URL got no answer
    ├── AnswerRejected                  llm.retry: a parser refuses an LLM answer
    ├── ValidationExhaustedError        llm.retry: no attempt gave a valid answer
    └── LocalLLMError (RuntimeError)    llm.local: the local model or its server is missing

Two are private and never leave their module: ``intake._NonFiniteNumberError``
(ValueError) and ``checks.numeric._expressions._ParseError``.

The Django side has its own root, ``RedlineError``, and maps its errors to HTTP
statuses; no exception class name is used on both sides.
"""


class EngineError(Exception):
    """The root of every exception the engine raises."""
