"""The one OpenAI-compatible chat-completions client of the project (docs/models.md).

The LLM solver agent, the VL judge, the author, the reviewer and the deriver all send their
requests through `modelapi.client.ChatClient`: one place for timeouts, headers, redaction and
token accounting. A call has one retry owner (`modelapi.retry`), and the llm workers share one
request budget (`modelapi.rate_budget`)."""

from contracts.entry_points import refuse_non_command

refuse_non_command(__name__, __path__)
