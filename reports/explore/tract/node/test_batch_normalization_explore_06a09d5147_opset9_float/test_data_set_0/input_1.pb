BscaleJy
’Á