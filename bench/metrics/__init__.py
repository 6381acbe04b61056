"""bench.metrics"""
