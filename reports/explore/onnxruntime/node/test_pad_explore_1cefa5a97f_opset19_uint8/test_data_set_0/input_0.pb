BdataJ
