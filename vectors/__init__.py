"""pto-avs vectors: the YAML vector files, their schema and format, and the independent references that computed them."""
