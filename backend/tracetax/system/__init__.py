"""The ground floor's view of the machine: /proc, processes, ports, CPU placement, the
measurement lock and the directories TraceTax keeps its tools and state in; and how the JSON
it stores is typed (`stored_json`: a number stays int or float, a record stays open), which
every producer of stored JSON describes its shape with.

Imports nothing of TraceTax outside this package, so every layer may use it.
"""
