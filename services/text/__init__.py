"""Text in and out.

- `sentences`: every sentence the bot says, in Korean, English and Japanese (`t`);
- `normalize`: the one normalisation for matching customer text; `numerals`: numbers in words;
- `sanitize`: customer text made storable everywhere; `html`: escaped Telegram HTML;
- `split`: long text cut into message-sized parts.
"""
