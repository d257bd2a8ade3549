/// The page `firestore-feed serve` answers `GET /` with: plain HTML and JavaScript (no framework, no build step),
/// built into the binary. It opens an `EventSource` on `events` (with the page's own `?token=` and `?lastEventId=`),
/// keeps the list of documents from the `reset` and `patch` events in `<ul id="list">` (one `<li data-name=NAME>` per
/// document, filled by `populateCell(document, element)`, the cell template of FirebaseUI's data sources), and shows
/// the connection's state (`#state`: connecting, live, reconnecting) and the last event id (`#last-event-id`).
///
/// A patch is applied in the order ``LiveListPatch`` documents (and ``LiveListPatch/apply(_:to:)`` follows): the
/// elements at `deleted` and at each move's `from` taken out; `count` slots filled with each inserted document at its
/// `index`, each moved element at its `to`, and the elements left, in order, in the empty slots; then each `changed`
/// `index` refilled. The `<li>` elements are kept across patches (a moved document's element moves). A patch that
/// does not fit the list (it cannot happen with this server) makes the page start over from a `reset`.
///
/// An `EventSource` reconnects by itself with `Last-Event-ID` when the stream closes (a cut, a restart); one refused
/// outright (`503` past `--max-clients`) is replaced after 2 s by a new one that resumes with `?lastEventId=`.
enum LiveListPage {
    /// The page, titled `title` (HTML-escaped here).
    static func html(title: String) -> String {
        let escaped = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        return template.replacingOccurrences(of: "{{TITLE}}", with: escaped)
    }

    static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{TITLE}} · live list</title>
        <style>
          :root { color-scheme: light; --accent: #1a73e8; --muted: #5f6368; --line: #e0e3e7; }
          body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f6f8fa;
                 color: #202124; }
          main { max-width: 720px; margin: 32px auto; padding: 0 20px; }
          header { display: flex; align-items: baseline; justify-content: space-between; gap: 12px; margin-bottom: 16px; }
          h1 { font-size: 20px; font-weight: 600; margin: 0; }
          h1 small { color: var(--muted); font-weight: 400; }
          #status { font-size: 13px; color: var(--muted); white-space: nowrap; }
          #state { display: inline-block; padding: 2px 10px; border-radius: 999px; font-weight: 600; margin-right: 6px;
                   background: #fef7e0; color: #b06000; }
          #state[data-state="live"] { background: #e6f4ea; color: #137333; }
          #state[data-state="reconnecting"] { background: #fce8e6; color: #c5221f; }
          #list { list-style: none; margin: 0; padding: 0; background: #fff; border: 1px solid var(--line);
                  border-radius: 10px; overflow: hidden; }
          #list li { display: flex; align-items: baseline; gap: 14px; padding: 12px 16px; border-top: 1px solid var(--line);
                     transition: background-color 1.2s; }
          #list li:first-child { border-top: 0; }
          #list li.fresh { background: #e8f0fe; transition: none; }
          .id { font-weight: 600; min-width: 7em; }
          .fields { flex: 1; display: flex; flex-wrap: wrap; gap: 4px 14px; }
          .field .key { color: var(--muted); margin-right: 4px; }
          .updated { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
          #empty { color: var(--muted); padding: 16px; text-align: center; }
          footer { margin-top: 12px; font-size: 12px; color: var(--muted); }
        </style>
        </head>
        <body>
        <main>
          <header>
            <h1>{{TITLE}} <small>live list</small></h1>
            <div id="status"><span id="state" data-state="connecting">connecting</span>
              event <span id="last-event-id">–</span> · <span id="count">0</span> documents</div>
          </header>
          <ul id="list"></ul>
          <p id="empty">No documents match the query.</p>
          <footer>Served by <code>firestore-feed serve</code> over server-sent events: a reset, then one patch per
            snapshot; a reconnect resumes after the last event id.</footer>
        </main>
        <script>
        "use strict";
        const params = new URLSearchParams(location.search);
        const token = params.get("token");
        let lastEventId = params.get("lastEventId");
        const listElement = document.getElementById("list");
        // The cells, in query order: { document, element }.
        let cells = [];
        let source = null;

        // A Firestore value (REST JSON: {"stringValue": …}, {"integerValue": "…"}, …) as text.
        function plain(value) {
          if (value === null || typeof value !== "object") return String(value);
          if ("stringValue" in value) return value.stringValue;
          if ("integerValue" in value) return String(value.integerValue);
          if ("doubleValue" in value) return String(value.doubleValue);
          if ("booleanValue" in value) return String(value.booleanValue);
          if ("nullValue" in value) return "null";
          if ("timestampValue" in value) return value.timestampValue;
          if ("referenceValue" in value) return value.referenceValue.split("/documents/").pop();
          if ("geoPointValue" in value) return value.geoPointValue.latitude + ", " + value.geoPointValue.longitude;
          if ("bytesValue" in value) return "bytes " + value.bytesValue;
          if ("arrayValue" in value) return "[" + (value.arrayValue.values || []).map(plain).join(", ") + "]";
          if ("mapValue" in value) {
            const fields = value.mapValue.fields || {};
            return "{" + Object.keys(fields).sort().map((key) => key + ": " + plain(fields[key])).join(", ") + "}";
          }
          return JSON.stringify(value);
        }

        // The cell template (FirebaseUI's populateCell): fills `element` with `document` (REST JSON). Replace it to
        // show documents your way.
        function populateCell(document, element) {
          element.dataset.name = document.name;
          const id = window.document.createElement("span");
          id.className = "id";
          id.textContent = document.name.split("/").pop();
          const fields = window.document.createElement("span");
          fields.className = "fields";
          const values = document.fields || {};
          for (const key of Object.keys(values).sort()) {
            const field = window.document.createElement("span");
            field.className = "field";
            const name = window.document.createElement("span");
            name.className = "key";
            name.textContent = key;
            field.append(name, plain(values[key]));
            fields.append(field);
          }
          const updated = window.document.createElement("time");
          updated.className = "updated";
          updated.dateTime = document.updateTime || "";
          updated.textContent = (document.updateTime || "").replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC");
          element.replaceChildren(id, fields, updated);
        }

        function cell(document) {
          const element = window.document.createElement("li");
          populateCell(document, element);
          flash(element);
          return { document, element };
        }

        function flash(element) {
          element.classList.add("fresh");
          requestAnimationFrame(() => requestAnimationFrame(() => element.classList.remove("fresh")));
        }

        function isIndex(value, bound) { return Number.isInteger(value) && value >= 0 && value < bound; }

        // The patch applied to `old` (cells) in LiveListPatch's order: deletions and moves' origins taken out;
        // `count` slots with the insertions and moves at their indexes and the rest, in order, in the empty slots;
        // then the changes. Throws for a patch that does not fit.
        function applyPatch(patch, old) {
          const count = patch.count;
          if (!Number.isInteger(count) || count < 0) throw new Error("patch: count is not an index");
          const takenOut = new Set();
          for (const index of patch.deleted) {
            if (!isIndex(index, old.length)) throw new Error("patch: deleted index " + index + " of " + old.length);
            takenOut.add(index);
          }
          const slots = new Array(count).fill(null);
          const filled = new Array(count).fill(false);
          function fill(index, value) {
            if (!isIndex(index, count) || filled[index]) throw new Error("patch: slot " + index + " of " + count);
            slots[index] = value;
            filled[index] = true;
          }
          for (const move of patch.moved) {
            if (!isIndex(move.from, old.length)) throw new Error("patch: move from " + move.from + " of " + old.length);
            takenOut.add(move.from);
            fill(move.to, old[move.from]);
          }
          for (const insertion of patch.inserted) {
            if (!insertion.document) throw new Error("patch: an insert has no document");
            fill(insertion.index, cell(insertion.document));
          }
          let next = 0;
          const skip = () => { while (next < old.length && takenOut.has(next)) next += 1; };
          for (let slot = 0; slot < count; slot += 1) {
            if (filled[slot]) continue;
            skip();
            if (next >= old.length) throw new Error("patch: slot " + slot + " of " + count + " is left empty");
            slots[slot] = old[next];
            filled[slot] = true;
            next += 1;
          }
          skip();
          if (next < old.length) throw new Error("patch: the old list has elements left over");
          for (const change of patch.changed) {
            if (!isIndex(change.index, count) || !change.document) throw new Error("patch: change at " + change.index);
            const kept = slots[change.index];
            kept.document = change.document;
            populateCell(change.document, kept.element);
            flash(kept.element);
          }
          return slots;
        }

        // Puts the cells' elements in `listElement` in order (kept elements move, others go).
        function render(next) {
          const kept = new Set(next.map((entry) => entry.element));
          for (const element of Array.from(listElement.children)) if (!kept.has(element)) element.remove();
          next.forEach((entry, index) => {
            const at = listElement.children[index];
            if (at !== entry.element) listElement.insertBefore(entry.element, at || null);
          });
          cells = next;
          document.getElementById("count").textContent = String(cells.length);
          document.getElementById("empty").hidden = cells.length > 0;
        }

        function show(state) {
          const badge = document.getElementById("state");
          badge.dataset.state = state;
          badge.textContent = state;
          document.getElementById("last-event-id").textContent = lastEventId === null ? "–" : lastEventId;
        }

        function connect() {
          const query = new URLSearchParams();
          if (token !== null) query.set("token", token);
          // A new EventSource sends no Last-Event-ID header: the id goes in the URL (the header wins on reconnects).
          if (lastEventId !== null) query.set("lastEventId", lastEventId);
          const text = query.toString();
          source = new EventSource("events" + (text ? "?" + text : ""));
          show("connecting");
          source.onopen = () => show("live");
          source.addEventListener("reset", (event) => {
            const data = JSON.parse(event.data);
            render(data.documents.map(cell));
            lastEventId = event.lastEventId;
            show("live");
          });
          source.addEventListener("patch", (event) => {
            try {
              render(applyPatch(JSON.parse(event.data), cells));
              lastEventId = event.lastEventId;
              show("live");
            } catch (error) {
              console.error(error);
              // Not this list's patch: start over from a reset.
              source.close();
              lastEventId = null;
              connect();
            }
          });
          source.onerror = () => {
            if (source.readyState === EventSource.CLOSED) {
              // Refused (503, 401) or failed: EventSource gives up on these; a new one resumes after 2 s.
              show("reconnecting");
              setTimeout(connect, 2000);
            } else {
              show("reconnecting");
            }
          };
        }

        render([]);
        connect();
        </script>
        </body>
        </html>

        """#
}
