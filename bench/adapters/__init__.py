"""bench.adapters"""
