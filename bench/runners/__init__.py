"""bench.runners"""
