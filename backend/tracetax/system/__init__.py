"""The ground floor's view of the machine: /proc, processes, ports, CPU placement, the
measurement lock and the directories TraceTax keeps its tools and state in.

Imports nothing of TraceTax outside this package, so every layer may use it.
"""
