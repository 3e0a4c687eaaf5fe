"""LLM prompts, one module each: its typed context, its text, its response schema and a version.

A prompt module renders `(system, messages)` from its context and parses the model's answer into
our records (the extraction prompt reads its answer in `extract_answer`, beside it; `answer_json`
finds the JSON in any answer). The answer is never trusted: what does not fit the schema is an
error (`llm.errors.ResponseSchemaError`), not a guess.
"""
