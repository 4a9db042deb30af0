"""What the bot makes of one message.

- `understand`: the intent, the FAQ entry and the way to answer, for one message;
- `classifier` and `encoder`: intents learnt from example phrasings (data/), with the
  multilingual sentence encoder (`encoder_forward`: its forward pass); `retrieval_encoder`:
  multilingual-e5-small, for the FAQ's second look; `vector_cache`: embeddings and fitted models
  kept on disk by what they were computed from;
- `entities`: order numbers, SKUs and product names; `lexical`: shared-word evidence;
- `reply_language`, `small_talk`, `complaints`, `second_question`: the language to answer in,
  greetings, complaints, and a second question in the same message;
- `evaluation`: precision and recall on a labelled set.
"""
