"""XSS vectors for the docs tests: what a hostile spec writes in its texts. Every vector
calls ``alert``/``confirm``/``prompt`` (or sets ``__xss``), in its frame or its parent."""

from __future__ import annotations

VECTORS = [
    "<script>alert(1)</script>",
    "<sCrIpT>alert(1)</ScRiPt>",
    "<img src=x onerror=alert(1)>",
    '<img src="x" onerror="alert(1)">',
    "<svg/onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text y="20">svg link</text></a></svg>',
    '<iframe srcdoc="<script>parent.alert(1)</script>"></iframe>',
    '<iframe src="javascript:parent.alert(1)"></iframe>',
    '<object data="javascript:alert(1)"></object>',
    '<embed src="javascript:alert(1)">',
    "<body onload=alert(1)>",
    "<details open ontoggle=alert(1)>",
    "<input autofocus onfocus=alert(1)>",
    "<video><source onerror=alert(1)></video>",
    "<marquee onstart=alert(1)>m</marquee>",
    "<x onclick=alert(1)>click me</x>",
    '<a href="javascript:alert(1)">html link</a>',
    '<a href="https://example.com" onmouseover="alert(1)">hover</a>',
    '<a href="&#106;avascript:alert(1)">entity link</a>',
    '<form action="javascript:alert(1)"><button>go</button></form>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="javascript:alert(1)//">',
    "<style>*{background:url(javascript:alert(1))}</style>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<!--><img src=x onerror=alert(1)>-->",
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(1)>",
    "</textarea></pre></code><script>alert(1)</script>",
    "[md link](javascript:alert(1))",
    "[md link](JaVaScRiPt:alert(1))",
    "[md link](  javascript:alert(1))",
    "[md link](<javascript:alert(1)>)",
    "[entity link](&#106;avascript:alert(1))",
    "[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[escaped\\](javascript:alert(1))",
    '[titled](https://example.com "t\\" onmouseover=\\"alert(1)")',
    "![md image](javascript:alert(1))",
    '![md image](x" onerror="alert(1))',
    "<javascript:alert(1)>",
    '<https://example.com/"onmouseover="alert(1)>',
    "[reference][evil]\n\n[evil]: javascript:alert(1)",
    "> [quoted]: javascript:alert(1)\n\n[quoted]",
    '{: onclick="alert(1)" }',
    "Para\n{: onclick=alert(1) }",
    "\\`<img src=x onerror=alert(document.domain)>`",
    "\\\\`<img src=x onerror=alert(1)>`",
    "``<img src=x onerror=alert(1)>`",
    "`<img src=x onerror=alert(1)>`",
    "`List<String>` stays readable",
    "```\n<script>alert(1)</script>\n```",
    "  ~~~\n  <img src=x onerror=alert(1)>\n  ~~~",
    "~~~\n<svg onload=alert(1)>",
    "    <script>alert(1)</script>",
    "<div onmouseover=alert(1)>block html</div>",
    "<img src=x onerror=alert(1)>\n===",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "\u0002wzxhzdk:0\u0003 \u00020\u0003 placeholders",
    "{{ 7*7 }} {% raw %} macros",
    "a | <img src=x onerror=alert(1)> | b",
]
HTML_VECTORS = [v for v in VECTORS if v.startswith("<") and "\n" not in v]
TEXT = "\n\n".join(VECTORS)
ONE = "<img src=x onerror=alert(1)>"
CELL = (
    "Cell \\`<img src=x onerror=alert(document.domain)>` and `List<String>`\n"
    "~~~\n<img src=x onerror=alert(1)> | `<svg onload=alert(1)>`\n~~~\n"
    "- [item](javascript:alert(1)) <script>alert(1)</script>\n"
    "| a | <iframe srcdoc='<script>parent.alert(1)</script>'> |"
)
