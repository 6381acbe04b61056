"""bench.report"""
