"""The shop's FAQ: which entry answers a question, and how it is answered.

- `matcher`: scoring entries against a question, and whether any answers it; `calibration`: the
  fitted model of "this entry answers it"; `second_look`: the retrieval encoder's re-ranking and
  second judgement for a question the matcher would not answer;
- `lookup`: the matcher behind one answering interface (`FaqLookupAnswerer`);
- `choices`: entries offered as buttons when none answers outright; `learning`: a tapped entry
  files the customer's question as its example (`entry.with_example`);
- `replies`: FAQ-style replies, drafted from the entry and verified by the LLM service;
- `files` and `store`: the CSV format shops import and export, and the FAQ as data the bot keeps
  current;
- `evaluation`: `csbot eval`, how the bot routes a shop's own questions before going live, and
  the learning curve (`--learn`).
"""
