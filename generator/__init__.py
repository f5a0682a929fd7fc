"""apismith: a code generator for HTTP APIs described in OpenAPI 3.0/3.1/3.2, Swagger 2.0
or JSON Schema.

The pipeline, one module per stage:

    load (generator.load) -> normalize (generator.normalize) -> IR (generator.ir)
    -> render (generator.render) -> format (generator.format) -> write (generator.write)

Every stage but the final write is a pure function of its input.
"""

__version__ = "0.1.0"
