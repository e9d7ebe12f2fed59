"""Read an empiric JUnit XML report with junitparser (a JUnit consumer from PyPI) and print what
it found as JSON: per suite its name, counts and properties, per case its name, class and result."""
import json
import sys

from junitparser import Error, Failure, JUnitXml, Skipped

xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = []
    for case in suite:
        kinds = [type(r).__name__ for r in case.result]
        result = "passed"
        if any(isinstance(r, Failure) for r in case.result):
            result = "failure"
        elif any(isinstance(r, Error) for r in case.result):
            result = "error"
        elif any(isinstance(r, Skipped) for r in case.result):
            result = "skipped"
        messages = [r.message for r in case.result]
        cases.append({"name": case.name, "classname": case.classname, "result": result,
                      "kinds": kinds, "messages": messages, "system_out": case.system_out})
    suites.append({
        "name": suite.name, "tests": suite.tests, "failures": suite.failures,
        "errors": suite.errors, "skipped": suite.skipped, "time": suite.time,
        "properties": {p.name: p.value for p in suite.properties()},
        "cases": cases,
    })
print(json.dumps({"tests": xml.tests, "failures": xml.failures, "suites": suites}))
