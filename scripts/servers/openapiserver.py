#!/usr/bin/env python3
"""scripts/servers/openapiserver.py — a mock server for an OpenAPI 3.x description (JSON), for CourierOpenAPI's
integration test: it serves the description and answers every operation, after checking the request against it.

    python3 scripts/servers/openapiserver.py --description zoo.json [--port P] [--env-file F]

Prints COURIER_OPENAPI_URL=http://127.0.0.1:PORT and, with --env-file, writes that line to the file (atomically:
its presence means "ready"). Standard library only.

Routes:
    GET /openapi.json       the description as given
    GET /__echo/OPERATION   what the last request to the operation OPERATION (its operationId) carried, as it came:
                            {"target": the raw path and query, "headers": [[name, value], ...], "body": text}
    any operation           the request is checked: the method and path match an operation; path, query, header
                            and cookie values are present when required and fit their schemas (types, enums,
                            formats; arrays and objects written as `style` and `explode` say: form, simple,
                            label, matrix); a JSON body fits the request body's schema, a form or multipart body
                            has the declared content type and its required fields (a multipart file part its
                            filename and `encoding`'s content type), a raw body the declared content type. A request that breaks a rule
                            gets 400 with {"errors": [...]} (and a line in the log); one that keeps them gets the
                            first 2xx response the operation declares, with a body made from its schema.
    anything else           404 {"errors": ["no operation ..."]}
"""

import argparse
import json
import re
import sys
import uuid
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, unquote, urlsplit

import serving

METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


class Description:
    def __init__(self, document):
        self.document = document
        self.routes = []
        for path, item in document.get("paths", {}).items():
            item = self.resolve(item)
            pattern = "^" + re.sub(r"\\\{([^}/]+)\\\}", r"(?P<\1>[^/]+)", re.escape(path)) + "$"
            shared = item.get("parameters", [])
            for method in METHODS:
                if method in item:
                    operation = self.resolve(item[method])
                    own = [self.resolve(p) for p in operation.get("parameters", [])]
                    keys = {(p["name"], p["in"]) for p in own}
                    parameters = [self.resolve(p) for p in shared if (self.resolve(p)["name"], self.resolve(p)["in"]) not in keys] + own
                    self.routes.append((method.upper(), re.compile(pattern), path, operation, parameters))
        servers = document.get("servers") or [{"url": "/"}]
        self.base_paths = sorted({urlsplit(s.get("url", "/")).path.rstrip("/") for s in servers}, key=len, reverse=True)

    def resolve(self, node, depth=0):
        while isinstance(node, dict) and "$ref" in node and depth < 32:
            target = self.document
            for token in node["$ref"].lstrip("#/").split("/"):
                target = target[unquote(token).replace("~1", "/").replace("~0", "~")]
            node = target
            depth += 1
        return node

    def match(self, method, path):
        for base in self.base_paths + [""]:
            if base and not path.startswith(base):
                continue
            rest = path[len(base):] or "/"
            for route_method, pattern, template, operation, parameters in self.routes:
                found = pattern.match(rest)
                if route_method == method and found:
                    # Raw: a path value's style delimiters are told apart from encoded characters in its values.
                    return template, operation, parameters, found.groupdict()
        return None

    # --- validation ---------------------------------------------------------------------------------------------

    def check(self, value, schema, where, errors, depth=0):
        schema = self.resolve(schema)
        if depth > 64 or not isinstance(schema, dict):
            return
        types = schema.get("type")
        nullable = schema.get("nullable") or (isinstance(types, list) and "null" in types)
        if isinstance(types, list):
            types = next((t for t in types if t != "null"), None)
        if value is None:
            if not nullable and schema:
                errors.append("%s: null is not allowed" % where)
            return
        for member in schema.get("allOf", []):
            self.check(value, member, where, errors, depth + 1)
        alternatives = schema.get("oneOf") or schema.get("anyOf")
        if alternatives:
            if not any(not self.errors_of(value, m, where, depth + 1) for m in alternatives):
                errors.append("%s: matches none of the alternatives" % where)
        if types is None and "properties" in schema:
            types = "object"
        expected = {
            "string": lambda v: isinstance(v, str),
            "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
            "boolean": lambda v: isinstance(v, bool),
            "array": lambda v: isinstance(v, list),
            "object": lambda v: isinstance(v, dict),
        }.get(types)
        if expected and not expected(value):
            errors.append("%s: %r is not of type %s" % (where, value, types))
            return
        if "enum" in schema and value not in schema["enum"]:
            errors.append("%s: %r is not one of %r" % (where, value, schema["enum"]))
        fmt = schema.get("format")
        if types == "string" and fmt == "uuid":
            try:
                uuid.UUID(value)
            except ValueError:
                errors.append("%s: %r is not a uuid" % (where, value))
        if types == "string" and fmt == "date-time" and not DATE_TIME.match(value):
            errors.append("%s: %r is not a date-time" % (where, value))
        if types == "integer" and fmt == "int32" and not -2**31 <= value < 2**31:
            errors.append("%s: %r is not an int32" % (where, value))
        if types == "array":
            for index, element in enumerate(value):
                self.check(element, schema.get("items", {}), "%s[%d]" % (where, index), errors, depth + 1)
        if types == "object":
            for name in schema.get("required", []):
                if name not in value:
                    errors.append("%s.%s: required but missing" % (where, name))
            properties = schema.get("properties", {})
            additional = schema.get("additionalProperties", True)
            for name, member in value.items():
                if name in properties:
                    self.check(member, properties[name], "%s.%s" % (where, name), errors, depth + 1)
                elif additional is False:
                    errors.append("%s.%s: not in the schema" % (where, name))
                elif isinstance(additional, dict):
                    self.check(member, additional, "%s.%s" % (where, name), errors, depth + 1)

    def errors_of(self, value, schema, where, depth):
        errors = []
        self.check(value, schema, where, errors, depth)
        return errors

    def typed(self, texts, schema, explode):
        """A parameter's text(s) as the value its schema describes (None when it does not parse)."""
        schema = self.resolve(schema)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((t for t in kind if t != "null"), None)
        if kind == "array":
            # An empty text is an empty list (RFC 6570: an empty list expands to nothing).
            parts = texts if explode else [p for t in texts if t for p in t.split(",")]
            return [self.typed([p], schema.get("items", {}), True) for p in parts]
        text = texts[0]
        try:
            if kind == "integer":
                return int(text)
            if kind == "number":
                return float(text)
        except ValueError:
            return text  # reported as a type error
        if kind == "boolean":
            return {"true": True, "false": False}.get(text, text)
        return text

    def typed_object(self, members, schema):
        """An object parameter's member texts as the values their schemas describe."""
        properties = self.resolve(schema).get("properties", {})
        return {key: self.typed([text], properties.get(key, {}), True) for key, text in members.items()}

    # --- examples -----------------------------------------------------------------------------------------------

    def example(self, schema, depth=0):
        schema = self.resolve(schema)
        if depth > 8 or not isinstance(schema, dict):
            return None
        if "enum" in schema:
            return schema["enum"][0]
        if "allOf" in schema:
            merged = {}
            for member in schema["allOf"]:
                value = self.example(member, depth + 1)
                if isinstance(value, dict):
                    merged.update(value)
            own = self.example({k: v for k, v in schema.items() if k != "allOf"}, depth + 1)
            if isinstance(own, dict):
                merged.update(own)
            return merged
        alternatives = schema.get("oneOf") or schema.get("anyOf")
        if alternatives:
            first = alternatives[0]
            value = self.example(first, depth + 1)
            discriminator = schema.get("discriminator")
            if isinstance(value, dict) and discriminator:
                name = first.get("$ref", "").split("/")[-1]
                for key, target in discriminator.get("mapping", {}).items():
                    if target == first.get("$ref"):
                        name = key
                value[discriminator["propertyName"]] = name
            return value
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((t for t in kind if t != "null"), None)
        if kind is None and "properties" in schema:
            kind = "object"
        fmt = schema.get("format")
        if kind == "string":
            return {"date-time": "2024-01-02T03:04:05Z", "uuid": "6F9619FF-8B86-D011-B42D-00CF4FC964FF",
                    "date": "2024-01-02", "binary": "aGVsbG8=", "byte": "aGVsbG8="}.get(fmt, "text")
        if kind == "integer":
            return 1
        if kind == "number":
            return 1.5
        if kind == "boolean":
            return True
        if kind == "array":
            return [self.example(schema.get("items", {}), depth + 1)]
        if kind == "object" or "additionalProperties" in schema:
            value = {}
            for name, member in schema.get("properties", {}).items():
                example = self.example(member, depth + 1)
                if example is not None or name in schema.get("required", []):
                    value[name] = example
            additional = schema.get("additionalProperties")
            if isinstance(additional, dict) and additional:
                value["key"] = self.example(additional, depth + 1)
            return value
        return {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    description = None
    raw = b""
    echoes = {}

    def log_message(self, format, *args):
        sys.stderr.write("openapiserver: %s\n" % (format % args))

    def reply(self, status, body=None, content_type="application/json"):
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if status != 204 and self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        if self.command == "GET" and url.path == "/openapi.json":
            return self.reply(200, Handler.raw)
        if self.command == "GET" and url.path.startswith("/__echo/"):
            echo = Handler.echoes.get(unquote(url.path[len("/__echo/"):]))
            return self.reply(200, echo) if echo else self.reply(404, {"errors": ["no request to echo"]})
        found = self.description.match(self.command, url.path)
        if not found:
            return self.reply(404, {"errors": ["no operation is %s %s" % (self.command, url.path)]})
        template, operation, parameters, path_values = found
        Handler.echoes[operation.get("operationId", "")] = {
            "target": self.path,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body": body.decode("utf-8", "replace"),
        }
        errors = self.check(operation, parameters, path_values, parse_qs(url.query, keep_blank_values=True), body)
        label = "%s (%s %s)" % (operation.get("operationId", ""), self.command, template)
        if errors:
            sys.stderr.write("openapiserver: rejected %s: %s\n" % (label, "; ".join(errors)))
            return self.reply(400, {"operation": label, "errors": errors})
        responses = operation.get("responses", {})
        status = next((s for s in responses if str(s).startswith("2")), "200")
        response = self.description.resolve(responses.get(status, {}))
        code = 200 if str(status).upper() == "2XX" else int(status)
        content = response.get("content") or {}
        if code == 204 or not content:
            return self.reply(204 if code == 204 else code, b"" if code != 204 else None)
        content_type, media = next(iter(content.items()))
        if "json" in content_type:
            return self.reply(code, self.description.example(media.get("schema", {})), content_type)
        return self.reply(code, b"ok", content_type)

    def check(self, operation, parameters, path_values, query, body):
        errors = []
        d = self.description
        cookies = {}
        if len(self.headers.get_all("Cookie") or []) > 1:
            errors.append("cookie: more than one Cookie field (RFC 6265 allows one)")
        for part in (self.headers.get("Cookie") or "").split(";"):
            if "=" in part:
                name, value = part.strip().split("=", 1)
                cookies[name] = value
        for parameter in parameters:
            name, where = parameter["name"], parameter["in"]
            style = parameter.get("style", "form" if where in ("query", "cookie") else "simple")
            explode = parameter.get("explode", style == "form")
            schema = parameter.get("schema", {})
            is_object = d.resolve(schema).get("type") == "object"
            if where == "query" and is_object and style == "form" and explode:
                # An exploded form object: its members are query items of their own.
                members = d.resolve(schema).get("properties", {})
                found = {key: query[key][0] for key in members if key in query}
                if not found:
                    if parameter.get("required"):
                        errors.append("query %s: required but missing" % name)
                    continue
                d.check(d.typed_object(found, schema), schema, "query %s" % name, errors)
                continue
            if where == "path":
                texts = [path_values[name]] if name in path_values else None
                if texts is not None:
                    texts, error = unstyled(texts[0], name, style, explode)
                    if error:
                        errors.append("path %s: %s" % (name, error))
                        continue
                    # Split at the style's delimiters as they came, then decode each piece: a delimiter that was
                    # percent-encoded is part of a value.
                    raw = texts[0]
                    if is_object:
                        members, error = object_members(raw, explode)
                        if error:
                            errors.append("path %s: %s" % (name, error))
                            continue
                        members = {unquote(k): unquote(v) for k, v in members.items()}
                        d.check(d.typed_object(members, schema), schema, "path %s" % name, errors)
                        continue
                    if d.resolve(schema).get("type") == "array":
                        parts = [unquote(p) for p in raw.split(",")] if raw else []
                        d.check(d.typed(parts, schema, True), schema, "path %s" % name, errors)
                        continue
                    texts = [unquote(raw)]
            elif where == "query":
                texts = query.get(name)
            elif where == "header":
                texts = [self.headers[name]] if self.headers.get(name) is not None else None
            else:
                texts = [cookies[name]] if name in cookies else None
            if texts is None:
                if parameter.get("required") or where == "path":
                    errors.append("%s %s: required but missing" % (where, name))
                continue
            if is_object:
                members, error = object_members(texts[0], explode and style != "form")
                if error:
                    errors.append("%s %s: %s" % (where, name, error))
                    continue
                d.check(d.typed_object(members, schema), schema, "%s %s" % (where, name), errors)
                continue
            # A path array is one comma-separated text once its style's marks are gone.
            d.check(d.typed(texts, schema, explode and where != "path"), schema, "%s %s" % (where, name), errors)
        request_body = d.resolve(operation.get("requestBody"))
        if request_body:
            content = request_body.get("content", {})
            sent_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if not body:
                if request_body.get("required"):
                    errors.append("body: required but missing")
            elif sent_type not in [t.lower() for t in content]:
                errors.append("body: content type %r is not one of %s" % (sent_type, list(content)))
            else:
                schema = next(m for t, m in content.items() if t.lower() == sent_type).get("schema", {})
                if "json" in sent_type:
                    try:
                        d.check(json.loads(body), schema, "body", errors)
                    except ValueError:
                        errors.append("body: not JSON")
                elif sent_type == "application/x-www-form-urlencoded":
                    fields = parse_qs(body.decode(), keep_blank_values=True)
                    self.check_fields(fields.keys(), schema, errors)
                elif sent_type == "multipart/form-data":
                    header = ("Content-Type: %s\r\n\r\n" % self.headers.get("Content-Type")).encode()
                    message = BytesParser(policy=HTTP).parsebytes(header + body)
                    parts = list(message.iter_parts())
                    names = [part.get_param("name", header="content-disposition") for part in parts]
                    self.check_fields(names, schema, errors)
                    self.check_files(parts, schema, next(m for t, m in content.items() if t.lower() == sent_type), errors)
        return errors

    def check_files(self, parts, schema, media, errors):
        """Parts of binary members are files: they carry a filename, and the content type `encoding` names."""
        properties = self.description.resolve(schema).get("properties", {})
        for part in parts:
            name = part.get_param("name", header="content-disposition")
            member = self.description.resolve(properties.get(name, {}))
            if member.get("format") != "binary":
                continue
            if not part.get_param("filename", header="content-disposition"):
                errors.append("body %s: a file part without a filename" % name)
            wanted = media.get("encoding", {}).get(name, {}).get("contentType")
            if wanted and part.get_content_type() != wanted.lower():
                errors.append("body %s: content type %r, not %r" % (name, part.get_content_type(), wanted))

    def check_fields(self, names, schema, errors):
        schema = self.description.resolve(schema)
        for name in schema.get("required", []):
            if name not in names:
                errors.append("body %s: required but missing" % name)
        properties = schema.get("properties", {})
        for name in names:
            if properties and name not in properties:
                errors.append("body %s: not in the schema" % name)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any


def unstyled(text, name, style, explode):
    """A path value without its style's prefix, as the texts `typed` reads (label and matrix arrays and objects
    become comma lists or key=value lists), or an error. An empty text is an empty list or object: RFC 6570 expands
    one to nothing, its prefix included."""
    if text == "" and style in ("label", "matrix"):
        return [text], None
    if style == "label":
        if not text.startswith("."):
            return None, "a label value starts with '.'"
        text = text[1:]
        return [text.replace(".", ",") if explode else text], None
    if style == "matrix":
        if explode and text.startswith(";") and "=" in text and not text.startswith(";%s=" % name):
            return [",".join(text[1:].split(";"))], None  # ;key=value;key=value (an exploded object)
        prefix = ";%s=" % name
        if not text.startswith(prefix):
            return None, "a matrix value starts with %r" % prefix
        return [text[len(prefix):].replace(prefix, ",")], None
    return [text], None


def object_members(text, exploded):
    """`key,value,key,value` (or `key=value,key=value` when exploded) as a dictionary, or an error."""
    parts = text.split(",") if text else []
    if exploded:
        pairs = [p.split("=", 1) for p in parts]
        if any(len(p) != 2 for p in pairs):
            return None, "not key=value pairs: %r" % text
        return dict(pairs), None
    if len(parts) % 2:
        return None, "not key,value pairs: %r" % text
    return dict(zip(parts[::2], parts[1::2])), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--description", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--env-file")
    args = parser.parse_args()
    with open(args.description, "rb") as f:
        Handler.raw = f.read()
    Handler.description = Description(json.loads(Handler.raw))
    serving.serve(Handler, args.port, "COURIER_OPENAPI_URL", args.env_file)

if __name__ == "__main__":
    main()
