BoutputJ#¡
Á