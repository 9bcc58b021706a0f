
BscaleJvK