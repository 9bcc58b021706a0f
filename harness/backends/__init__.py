"""Backend adapters, loaded by name; see base.py for the contract."""
