"""Where Claude is called: the Messages API client and one call, its metrics, the prompts (one
module each, with its response schema and version) and the Claude extractor."""
