"""Widget 18 (Unit 18 §14): "The formula map".

The unit's formulas as one chain (scores → softmax → context → QKV → scaling → heads →
position → block → mask → families → cost → the whole model): a map drawn as an SVG snake of
boxes and arrows, and the same map as an ordered list, each item its formula, what it adds to
the one before, and links to the section and the widget that built it.

Nothing here is typed twice: the figures give each node its concept, its formula and the
section number and the k-th widget of that section that built it (figures/s14_carry_forward.py);
the section's title, its page and the widget's id come from the compiled unit
(WidgetContext.sections, filled by the compiler as each section is compiled). A section not
published yet (no file, or a draft) is "being written": its node has no link, and gets its
links on the next compile after the section is published. The widget's number is the plan's
(the widget counts of unit.toml before its section, plus k), so it is right before and after
the sections around it are written.

Without JavaScript the map and the list are the widget; with it, a slider (or a click on a box)
walks the chain one node at a time, with that node's card above the list. The script only
chooses what to show: every word of it comes from the state.
"""

from __future__ import annotations

from typing import Any

from . import SectionSoFar, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "formula-map"
NEEDS = ("nodes", "links", "echoes")
h = kit.h

# The snake: two columns of boxes, left to right, then right to left on the next row.
WIDTH, BOX_W, BOX_H, GAP_Y, TOP = 340, 148, 46, 66, 8
COLS = (8 + BOX_W / 2, WIDTH - 8 - BOX_W / 2)


def _where(i: int) -> tuple[float, float]:
    """The centre of node i's box."""
    row, k = divmod(i, 2)
    col = k if row % 2 == 0 else 1 - k
    return COLS[col], TOP + BOX_H / 2 + row * GAP_Y


def _widget_name(name: str) -> str:
    return name.replace("-", " ")


def _resolve(node: dict[str, Any], ctx: WidgetContext) -> dict[str, Any]:
    """A node with its section and widget as the compiled unit has them."""
    n, k = int(node["section"]), int(node["widget"])
    sec: SectionSoFar | None = ctx.sections.get(n)
    if sec is None:
        raise WidgetOptionError(f"node {node['id']!r}: the unit has no section {n}")
    if n >= ctx.section:
        raise WidgetOptionError(f"node {node['id']!r}: §{n} is not before this section")
    if not 1 <= k <= sec.planned_widgets:
        raise WidgetOptionError(
            f"node {node['id']!r}: §{n} plans {sec.planned_widgets} widget(s), not a widget {k}"
        )
    out = {
        "id": node["id"],
        "label": node["label"],
        "formula": node["formula"],
        "section": n,
        "title": sec.title,
        "url": sec.url if sec.published else None,
        "widget": f"Widget {sec.first_widget + k - 1}",
        "widget_url": None,
    }
    if sec.published:
        if len(sec.widgets) < k:
            raise WidgetOptionError(f"node {node['id']!r}: §{n} has no widget {k}")
        wid, wname = sec.widgets[k - 1]
        out["widget"] += f", {_widget_name(wname)}"
        out["widget_url"] = f"{sec.url}#{wid}"
    return out


def _nodes(ex: dict[str, Any], ctx: WidgetContext) -> list[dict[str, Any]]:
    nodes = [_resolve(n, ctx) for n in ex["nodes"]]
    ids = [n["id"] for n in nodes]
    if len(set(ids)) != len(ids) or len(ids) < 2:
        raise WidgetOptionError("the map needs two or more nodes, each id once")
    links: dict[str, str] = ex["links"]
    label = {n["id"]: n["label"] for n in nodes}
    for i, node in enumerate(nodes):
        node["adds"] = links.get(node["id"], "") if i else ""
        node["next"] = nodes[i + 1]["label"] if i + 1 < len(nodes) else ""
        node["echoes"] = [
            f"{why} (see {label[b] if a == node['id'] else label[a]})"
            for a, b, why in ex["echoes"]
            if node["id"] in (a, b)
        ]
    for a, b, _ in ex["echoes"]:
        if a not in label or b not in label:
            raise WidgetOptionError(f"an echo joins {a!r} and {b!r}: both must be nodes")
    missing = [i for i in ids[1:] if not links.get(i)]
    if missing:
        raise WidgetOptionError(f"what nodes {missing} add to the one before: give it in links")
    return nodes


def _map(uid: str, nodes: list[dict[str, Any]]) -> kit.HTML:
    rows = (len(nodes) + 1) // 2
    height = TOP * 2 + BOX_H + (rows - 1) * GAP_Y
    marker = h(
        "defs",
        h("marker", h("path", d="M0,0 L8,4 L0,8 z", class_="fm-head"), id=f"{uid}-arrow",
          viewBox="0 0 8 8", refX="8", refY="4", markerWidth="7", markerHeight="7",
          orient="auto-start-reverse"),
    )  # fmt: skip
    arrows = []
    for i in range(len(nodes) - 1):
        (x1, y1), (x2, y2) = _where(i), _where(i + 1)
        if y1 == y2:  # along a row
            sign = 1 if x2 > x1 else -1
            a, b = (x1 + sign * BOX_W / 2, y1), (x2 - sign * BOX_W / 2, y2)
        else:  # down to the next row, same column
            a, b = (x1, y1 + BOX_H / 2), (x2, y2 - BOX_H / 2)
        arrows.append(
            h("line", x1=f"{a[0]:g}", y1=f"{a[1]:g}", x2=f"{b[0]:g}", y2=f"{b[1]:g}",
              class_="fm-arrow", marker_end=f"url(#{uid}-arrow)")
        )  # fmt: skip
    boxes = []
    for i, n in enumerate(nodes):
        x, y = _where(i)
        boxes.append(
            h("g",
              h("rect", x=f"{x - BOX_W / 2:g}", y=f"{y - BOX_H / 2:g}", width=str(BOX_W),
                height=str(BOX_H), rx="8", class_="fm-box"),
              h("text", n["label"], x=f"{x:g}", y=f"{y - 4:g}", class_="fm-label",
                text_anchor="middle"),
              h("text", f"§{n['section']}" + ("" if n["url"] else ", being written"),
                x=f"{x:g}", y=f"{y + 14:g}", class_="fm-sec", text_anchor="middle"),
              class_="fm-node" + ("" if n["url"] else " fm-unwritten"), target="box",
              data_k=str(i))
        )  # fmt: skip
    chain = " → ".join(n["label"] for n in nodes)
    unwritten = [f"§{n['section']}" for n in nodes if not n["url"]]
    desc = f"A chain of {len(nodes)} boxes joined by arrows: {chain}." + (
        f" Boxes of sections being written ({', '.join(dict.fromkeys(unwritten))}) are dashed."
        if unwritten
        else ""
    )
    return kit.figure(
        marker,
        arrows,
        boxes,
        uid=f"{uid}-map",
        title="The unit's formulas as a map",
        desc=desc,
        caption="The map: each box a formula, each arrow what the next one adds. The list "
        "below gives every formula and links to where it was built.",
        viewbox=f"0 0 {WIDTH} {height:g}",
        svg_class="fm-svg",
        class_="fm-figure",
    )


def _item(uid: str, i: int, n: dict[str, Any], total: int) -> kit.HTML:
    sec_part: kit.Child = (
        h("a", f"§{n['section']} {n['title']}", href=n["url"])
        if n["url"]
        else h("span", f"§{n['section']} {n['title']} (being written)")
    )
    widget_part: kit.Child = (
        h("a", n["widget"], href=n["widget_url"]) if n["widget_url"] else h("span", n["widget"])
    )
    return h(
        "li",
        h("p", h("strong", n["label"], class_="fm-name"), " ",
          h("span", n["formula"], class_="fm-formula")),
        h("p", f"Adds: {n['adds']}.", class_="fm-adds") if n["adds"] else None,
        h("p", "Built in ", sec_part, ", with ", widget_part, ".", class_="fm-where"),
        [h("p", f"Echo: {e}.", class_="fm-echo") for e in n["echoes"]],
        h("p", f"Leads to: {n['next']}." if n["next"] else "The end of the chain.",
          class_="fm-next"),
        class_="fm-item",
        target="item",
        data_k=str(i),
        id=f"{uid}-n{i + 1}",
        aria_label=f"{i + 1} of {total}: {n['label']}",
    )  # fmt: skip


@register(
    NAME,
    scripts=("widgets/formula-map.js",),
    styles=("widgets/controls.css", "widgets/formula-map.css"),
    options=(option.example(default="formula_map", needs=NEEDS),),
    control="node",
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    nodes = _nodes(opts["example"], ctx)
    total = len(nodes)
    first = nodes[0]
    state = {
        "nodes": [
            {k: n[k] for k in ("label", "formula", "section", "title", "url", "widget",
                               "widget_url", "adds", "next")}
            for n in nodes
        ],
    }  # fmt: skip
    walk = h(
        "div",
        parts.slider(uid, "node", "Follow the chain", value=1, lo=1, hi=total, step=1,
                     shown=f"1 of {total}", valuetext=f"1 of {total}: {first['label']}",
                     help="or press a box of the map"),
        # The first node's card, as the script writes it (formula-map.js #pick): its links have
        # their addresses before the widget wakes (it does so near the screen).
        h("div",
          h("p", h("strong", first["label"], target="card-name"), " ",
            h("span", first["formula"], target="card-formula", class_="fm-formula")),
          h("p", f"Adds: {first['adds']}." if first["adds"] else "Where the chain starts.",
            target="card-adds", class_="fm-adds"),
          h("p", "Built in ",
            h("a", f"§{first['section']} {first['title']}"
                   + ("" if first["url"] else " (being written)"),
              href=first["url"] or None, target="card-sec"),
            ", with ",
            h("a", first["widget"], href=first["widget_url"] or None, target="card-widget"),
            ".", class_="fm-where"),
          h("p", f"Leads to: {first['next']}." if first["next"] else "The end of the chain.",
            target="card-next", class_="fm-next"),
          class_="fm-card", target="card"),
        class_="fm-walk",
        js=True,
    )  # fmt: skip
    return kit.element(
        NAME,
        uid,
        state,
        walk,
        kit.status(class_="wk-status"),
        _map(uid, nodes),
        h("p", h("strong", "The formulas, in order"), class_="fm-h", id=f"{uid}-list"),
        h("ol", [_item(uid, i, n, total) for i, n in enumerate(nodes)], class_="fm-list",
          aria_labelledby=f"{uid}-list"),
        class_="wk fm",
    )  # fmt: skip
