"""The shop's FAQ: which entry answers a question, and how it is answered.

- `matcher`: scoring entries against a question, and whether any answers it;
- `lookup`: the matcher behind one answering interface (`FaqLookupAnswerer`);
- `choices`: entries offered as buttons when none answers outright;
- `replies`: FAQ-style replies, drafted from the entry and verified by the LLM service;
- `files` and `store`: the CSV format shops import and export, and the FAQ as data the bot keeps
  current;
- `evaluation`: `csbot eval`, how the bot routes a shop's own questions before going live.
"""
