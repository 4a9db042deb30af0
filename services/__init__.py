"""Domain and LLM logic, one package per domain. Nothing here imports aiogram, bot or handlers
(`lint-imports` checks it): handlers adapt it to Telegram.

- `understanding`: what a message is about; `inquiry`: routing it to the service that answers;
- `catalogue`, `orders`, `returns`, `faq`, `handoff`: the answers, each from the shop's data;
- `shop`: the shop's data sources, files and rules; `llm`: model access and verified answers;
- `inbox`: nothing lost; `admin`, `console`, `rollout`: what staff read and try;
- `text`: every sentence the bot says and the text utilities;
- `replies` (what a service answers), `answerers` (built once at start), `settings` (the typed
  configuration), `resilience` (retries, back-off and the circuit breaker for every outside call).
"""
