"""Where the answer services read the shop's customers, orders and products.

One interface (`ShopData`), two sources: csbot's own tables (the default, fed by
`csbot import`) and the shop's own system over HTTP (`CSBOT_SHOP_API_URL`), for shops
that cannot copy their orders every minute.
"""
