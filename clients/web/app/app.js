// The web table that `feltline serve --web-port` serves at `/`: a lobby of
// the open tables, kept live, and a table's view as the token's holder may
// see it, kept live by WatchTable, where a player sits, plays with the
// choices the server offers, and stands up. It draws only what the server
// sends, so a spectator's page never holds a face-down card: the server
// withholds them. Every refusal is the server's, shown as it says it.
import "./app.css";
import { fromBinary } from "@bufbuild/protobuf";
import { BinaryReader, base64Decode } from "@bufbuild/protobuf/wire";
import {
  AccountService,
  ActionKind,
  Code,
  ConnectError,
  Declaration,
  ExportFormat,
  Game,
  MatchService,
  MatchState,
  PlayService,
  ReplayService,
  Role,
  SeatStatus,
  SessionService,
  Structure,
  TableService,
  TableState,
  TokenClaimsSchema,
  WatchService,
  bearer,
  createClient,
  createConnectTransport,
} from "../src/index.js";

const TOKEN = "feltline-token";
const LOBBY_EVERY = 2000; // ms between the lobby's refreshes
const RETRY = 1000; // ms before a watch that failed resumes from its cursor
const LOG = 12; // lines of the table's log shown

const app = document.getElementById("app");
const status = document.getElementById("status");

/** The token a link gave (`#token=...`, or `#/table/ID&token=...`), taken
 * out of the address at once; "" if none. */
function linked() {
  const given = /[#&]token=([^&]+)/.exec(location.hash);
  if (!given) return "";
  const route = location.hash.replace(given[0], "").replace(/^#?&?/, "#");
  history.replaceState(null, "", `${location.pathname}${location.search}${route === "#" ? "#/" : route}`);
  return decodeURIComponent(given[1]);
}

/** Keeps a token given (by a link or pasted) for the tab's session only:
 * an invite's (`feltline invite`) is exchanged for the session's token
 * the server gives for it once, so that the link is worth nothing after. */
async function keep(given) {
  if (claims(given).invite) {
    const sessions = createClient(SessionService, createConnectTransport({ baseUrl: location.origin, interceptors: [bearer(given)] }));
    sessionStorage.setItem(TOKEN, (await sessions.createSession({})).token);
  } else {
    sessionStorage.setItem(TOKEN, given);
  }
}

/** The token the tab keeps, a link's first kept if the address has one. */
async function token() {
  const given = linked();
  if (given) await keep(given);
  return sessionStorage.getItem(TOKEN) ?? "";
}

function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== false) element.setAttribute(name, value === true ? "" : value);
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined));
  return element;
}

/** Tells the person something: an error is a refusal, kept until they act
 * again, or (`passing`) a lost connection, gone once the server is heard. */
function say(text, error = false, passing = false) {
  status.textContent = text;
  status.className = error ? "error" : "";
  status.dataset.passing = passing ? "yes" : "";
}

/** The server is heard again: a refusal stays said (a watch's message may
 * come a moment after it, e.g. of the action that made a turn stale). */
function heard() {
  if (status.dataset.passing || !status.className) say("");
}

/** What the server said of a refusal: its message, and for a request that
 * breaks the contract's rules, each field and what is wrong with it (the
 * google.rpc.BadRequest detail, read off the wire: the library of this
 * page holds no google.rpc schemas). */
function why(error) {
  if (!(error instanceof ConnectError)) return String(error);
  const fields = [];
  for (const detail of error.details) {
    if (detail.type !== "google.rpc.BadRequest" || !(detail.value instanceof Uint8Array)) continue;
    const request = new BinaryReader(detail.value);
    while (request.pos < request.len) {
      const [number, wire] = request.tag();
      if (number !== 1) { request.skip(wire); continue; } // field_violations
      const violation = new BinaryReader(request.bytes());
      let field = "";
      let description = "";
      while (violation.pos < violation.len) {
        const [at, kind] = violation.tag();
        if (at === 1) field = violation.string();
        else if (at === 2) description = violation.string();
        else violation.skip(kind);
      }
      fields.push(field ? `${field}: ${description}` : description);
    }
  }
  return fields.length ? `${error.rawMessage} (${fields.join("; ")})` : error.rawMessage;
}

/** Who the token says its holder is (for what to offer; the server decides). */
function claims(token) {
  try {
    return fromBinary(TokenClaimsSchema, base64Decode(token.split(".")[1]));
  } catch {
    return { role: Role.UNSPECIFIED, playerId: "" };
  }
}

/** A request id (crypto.randomUUID needs a secure context; this does not). */
function requestId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };

function card(text) {
  const red = text[1] === "h" || text[1] === "d";
  return h("span", { class: red ? "card red" : "card", "data-card": text }, `${text[0]}${SUITS[text[1]] ?? text[1]}`);
}

function backs(count) {
  return Array.from({ length: count }, () => h("span", { class: "card back", "aria-label": "face down" }));
}

function name(enumeration, value) {
  return (enumeration[value] ?? "").toLowerCase().replaceAll("_", " ");
}

function stakes(rules) {
  const s = rules.stakes;
  const structure = { [Structure.NO_LIMIT]: "NL", [Structure.POT_LIMIT]: "PL", [Structure.FIXED_LIMIT]: "FL" }[s.structure] ?? "";
  const amounts = s.bigBlind ? `${s.smallBlind}/${s.bigBlind}` : `${s.smallBet}/${s.bigBet || s.smallBet * 2n}`;
  return `${structure} ${amounts}${s.ante ? ` ante ${s.ante}` : ""}`;
}

// A mixed table's game is the current hand's (between hands, the next
// one's), from its turn in the rotation, not the first game of its rules.
function gameOf(table) {
  if (!table.turn) return name(Game, table.config.rules.game);
  return `${name(Game, table.turn.game)} (mixed; next ${name(Game, table.turn.nextGame)})`;
}

function seated(table) {
  return table.seats.filter((seat) => seat.playerId);
}

// ---- the lobby

/** The operator's part of the lobby: minting chips (closing a table is a
 * button on its row). The server decides; the page only offers. */
function floor(accounts) {
  const player = h("input", { class: "mint-player", "aria-label": "player", placeholder: "player", size: "12" });
  const chips = h("input", { type: "number", class: "mint-amount", "aria-label": "chips", min: "1", value: "1000" });
  const done = h("span", { class: "minted" });
  const form = h("form", { class: "floor" }, "Mint ", chips, " chips to ", player, " ", h("button", {}, "Mint"), " ", done);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const { account } = await accounts.mintChips({ playerId: player.value.trim(), amount: BigInt(chips.value || 0),
        note: "minted from the web table", requestId: requestId() });
      done.textContent = `${account.playerId} has ${account.balance} chips`;
      say("");
    } catch (error) {
      if (!turnedAway(error)) say(why(error), true);
    }
  });
  return form;
}

/** A select of an enumeration's values (UNSPECIFIED left out), `chosen`
 * selected. */
function choices(enumeration, chosen, label) {
  return h("select", { "aria-label": label },
    Object.entries(enumeration).filter(([key, value]) => typeof value === "number" && key !== "UNSPECIFIED")
      .map(([, value]) => h("option", { value: String(value), selected: value === chosen }, name(enumeration, value))));
}

/** The operator's form to open a table: the game, its structure and
 * stakes, seats, buy-ins and the action clock. The page checks nothing of
 * its own: a game's stakes that do not fit it are the server's refusal,
 * shown as it words it. An empty amount is none (0); an empty buy-in or
 * clock, the server's default. */
function opening(tables) {
  const field = (label, value, size = "6") => h("input", { type: "number", min: "0", "aria-label": label, value, size });
  const named = h("input", { "aria-label": "table name", placeholder: "table name", size: "16" });
  const game = choices(Game, Game.HOLDEM, "game");
  const structure = choices(Structure, Structure.NO_LIMIT, "structure");
  const amounts = {
    smallBlind: field("small blind", "5"), bigBlind: field("big blind", "10"), smallBet: field("small bet", "10"),
    bigBet: field("big bet", ""), ante: field("ante", ""), bringIn: field("bring-in", ""),
  };
  const seats = field("seats", "6", "3");
  const minBuyIn = field("minimum buy-in", "200");
  const maxBuyIn = field("maximum buy-in", "1000");
  const clock = field("action clock (s)", "30", "4");
  const chips = (input) => BigInt(input.value || 0);
  const form = h("form", { class: "floor opening" }, "Open ", named, " ", game, " ", structure,
    ...Object.entries(amounts).flatMap(([, input]) => [" ", h("label", {}, input.getAttribute("aria-label"), " ", input)]),
    " ", h("label", {}, "seats ", seats), " ", h("label", {}, "buy-in ", minBuyIn), " to ", maxBuyIn,
    " ", h("label", {}, "clock ", clock, " s"), " ", h("button", {}, "Open table"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const opener = form.querySelector("button");
    opener.disabled = true;
    try {
      const stakes = { structure: Number(structure.value) };
      for (const [key, input] of Object.entries(amounts)) stakes[key] = chips(input);
      const { table } = await tables.createTable({
        displayName: named.value.trim(),
        config: {
          rules: { game: Number(game.value), stakes },
          seats: Number(seats.value || 0),
          minBuyIn: minBuyIn.value ? chips(minBuyIn) : undefined,
          maxBuyIn: maxBuyIn.value ? chips(maxBuyIn) : undefined,
          actionClock: clock.value ? { seconds: BigInt(clock.value) } : undefined,
        },
        requestId: requestId(),
      });
      say(`${table.displayName} is open`);
    } catch (error) {
      if (!turnedAway(error)) say(why(error), true);
    } finally {
      opener.disabled = false;
    }
  });
  return form;
}

/** Fetches the chosen hands in a format by ExportHands, as the server lets
 * the token's holder see them: the text of a history, or the lines of the
 * portable log. */
async function exported(replay, format, handIds, signal) {
  let text = "";
  const lines = [];
  for await (const part of replay.exportHands({ format, handIds }, { signal })) {
    text += part.text;
    lines.push(...part.lines);
  }
  return format === ExportFormat.FELTLINE_LOG ? lines.map((line) => `${line}\n`).join("") : text;
}

/** A file the page made, as an address the browser opens or saves (kept
 * a minute, long enough for a new tab to load it). */
function made(text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return url;
}

/** A button opening a hand in the HTML replayer, in a new tab: the page
 * the server writes for the token's holder (a player's own cards, others'
 * only where shown; an auditor's every card, once the hand is over). */
function replaying(replay, handId, signal) {
  const opening = button("Replay", async () => {
    opening.disabled = true;
    try {
      const url = made(await exported(replay, ExportFormat.HTML, [handId], signal), "text/html");
      if (!window.open(url, "_blank")) say("the browser blocked the replay's tab: allow this page's pop-ups", true);
    } catch (error) {
      if (!signal.aborted && !turnedAway(error)) say(why(error), true);
    } finally {
      opening.disabled = false;
    }
  });
  opening.classList.add("replay");
  return opening;
}

/** What a hand came to for a seat: its final stack less its first. */
function net(result) {
  const gained = result.finalStack - result.startingStack;
  return gained > 0n ? `+${gained}` : String(gained);
}

/** A player's part of the lobby and of a table's view: its last ten
 * finished hands (its game recall), newest first, each opening in the
 * replayer. Returns what draws them again, to call when a hand ends: one
 * call at a time, the last change always fetched, and the rows redrawn
 * only when the hands listed changed. */
function recent(replay, section, signal) {
  let asking = false;
  let stale = false;
  let listed = "";
  const refresh = async () => {
    stale = true;
    if (asking) return;
    asking = true;
    try {
      while (stale && !signal.aborted) {
        stale = false;
        const { hands } = await replay.recallHands({}, { signal });
        const ids = hands.map((recalled) => recalled.hand.handId).join(",");
        if (!hands.length || ids === listed) continue;
        listed = ids;
        section.replaceChildren(h("h2", {}, "Your recent hands"),
          h("table", { class: "lobby hands" },
            h("thead", {}, h("tr", {}, h("th", {}, "Hand"), h("th", {}, "Result"), h("th", {}))),
            h("tbody", {}, [...hands].reverse().map((recalled) => h("tr", { "data-hand-id": recalled.hand.handId },
              h("td", {}, recalled.title), h("td", { class: "net" }, net(recalled.result)),
              h("td", {}, replaying(replay, recalled.hand.handId, signal)))))));
      }
    } catch (error) {
      if (!signal.aborted && !turnedAway(error)) say(why(error), true);
    } finally {
      asking = false;
    }
  };
  refresh();
  return refresh;
}

const AUDITED_PAGE = 20; // finished hands an auditor's page asks for at a time

/** The auditor's part of the lobby: finished hands (oldest first), a page
 * at a time, each verified by the server on asking (its chain, signatures,
 * seal, deck) or opened in the replayer, and those listed exported as the
 * portable log, which `feltline-replay verify` checks offline. */
async function audit(replay, section, signal) {
  const rows = h("tbody");
  const listed = [];
  let next = "";
  const more = button("More hands", () => page());
  const saving = button("Export the hands listed (feltline log)", async () => {
    saving.disabled = true;
    try {
      const log = await exported(replay, ExportFormat.FELTLINE_LOG, listed, signal);
      const link = h("a", { href: made(log, "application/x-ndjson"), download: "feltline-log.jsonl" });
      link.click();
      say(`exported ${listed.length} hands`);
    } catch (error) {
      if (!signal.aborted && !turnedAway(error)) say(why(error), true);
    } finally {
      saving.disabled = false;
    }
  });
  saving.classList.add("export");
  more.classList.add("more");
  section.replaceChildren(h("h2", {}, "Finished hands"),
    h("table", { class: "lobby hands" },
      h("thead", {}, h("tr", {}, h("th", {}, "Hand"), h("th", {}, "Game"), h("th", {}, "Verified"), h("th", {}))), rows),
    h("p", {}, more, " ", saving));
  const row = (hand) => {
    const result = h("td", { class: "verified" });
    const verify = button("Verify", async () => {
      verify.disabled = true;
      try {
        const checked = await replay.verifyHand({ handId: hand.handId }, { signal });
        result.textContent = checked.ok
          ? `ok (key ${checked.publicKey.slice(0, 16)}…)`
          : `failed: ${checked.failures.map((failure) => failure.check).join(", ")}`;
      } catch (error) {
        if (!turnedAway(error)) say(why(error), true);
      } finally {
        verify.disabled = false;
      }
    });
    result.append(verify);
    return h("tr", { "data-hand-id": hand.handId },
      h("td", {}, `${hand.tableId.slice(0, 8)} #${hand.handNumber}`), h("td", {}, name(Game, hand.game)), result,
      h("td", {}, replaying(replay, hand.handId, signal)));
  };
  const page = async () => {
    more.disabled = true;
    try {
      const { hands, nextPageToken } = await replay.listHands({ pageSize: AUDITED_PAGE, pageToken: next }, { signal });
      next = nextPageToken;
      listed.push(...hands.map((hand) => hand.handId));
      rows.append(...hands.map(row));
      more.hidden = !next;
      saving.hidden = !listed.length;
    } catch (error) {
      if (!signal.aborted && !turnedAway(error)) say(why(error), true);
    } finally {
      more.disabled = false;
    }
  };
  await page();
}

async function lobby({ tables, accounts, replay, me }, signal) {
  const rows = h("tbody");
  const operator = me.role === Role.ADMIN;
  app.replaceChildren(
    h("h1", {}, "Open tables"),
    operator ? opening(tables) : null,
    operator ? floor(accounts) : null,
    h("table", { class: "lobby" },
      h("thead", {}, h("tr", {}, h("th", {}, "Table"), h("th", {}, "Game"), h("th", {}, "Stakes"),
        h("th", {}, "Seats"), h("th", { class: "players" }, "Players"), operator ? h("th", {}) : null)),
      rows),
  );
  if (me.role === Role.AUDITOR) {
    const section = h("section", { class: "audit" });
    app.append(section);
    audit(replay, section, signal);
  }
  // A player's recent hands, drawn again when a hand ends (or the next
  // begins) at a table it has sat at since the lobby opened (a hand it left
  // may end after it stood up): the tables listed say so.
  let hands = null;
  let playing = "";
  const sat = new Set();
  if (me.role === Role.PLAYER) {
    const section = h("section", { class: "recent" });
    app.append(section);
    hands = recent(replay, section, signal);
  }
  const closing = (table) => {
    const close = button("Close", async (event) => {
      event.stopPropagation(); // not also opening it
      close.disabled = true;
      try {
        await tables.closeTable({ tableId: table.tableId, reason: "closed from the web table", requestId: requestId() });
        say(`${table.displayName} is closed`);
      } catch (error) {
        if (!turnedAway(error)) say(why(error), true);
      }
    });
    return h("td", {}, close);
  };
  while (!signal.aborted) {
    try {
      const { tables: open } = await tables.listTables({ state: TableState.OPEN }, { signal });
      rows.replaceChildren(...open.map((table) => {
        const row = h("tr", { tabindex: "0", "data-table": table.tableId },
          h("td", {}, table.displayName || table.tableId.slice(0, 8)),
          h("td", {}, gameOf(table)),
          h("td", {}, stakes(table.config.rules)),
          h("td", {}, `${seated(table).length}/${table.config.seats}`),
          h("td", { class: "players" }, seated(table).map((seat) => seat.playerId).join(", ")),
          operator ? closing(table) : null);
        const open = () => { location.hash = `#/table/${table.tableId}`; };
        row.addEventListener("click", open);
        row.addEventListener("keydown", (event) => { if (event.key === "Enter") open(); });
        return row;
      }));
      if (!open.length) rows.replaceChildren(h("tr", {}, h("td", { colspan: "5", class: "empty" }, "No open table.")));
      for (const table of open) {
        if (seated(table).some((seat) => seat.playerId === me.playerId)) sat.add(table.tableId);
      }
      const mine = open.filter((table) => sat.has(table.tableId))
        .map((table) => `${table.tableId}.${table.handsDealt}.${table.currentHand ? "playing" : "between"}`).join(",");
      if (hands && mine !== playing) hands();
      playing = mine;
      heard();
    } catch (error) {
      if (signal.aborted || turnedAway(error)) return;
      say(why(error), true, true);
    }
    await sleep(LOBBY_EVERY, signal);
  }
}

// ---- a table

const TOLD = {
  handStarted: (_, event) => `hand ${event.handNumber}`,
  posted: (v) => `seat ${v.seat} posts ${v.amount}`,
  acted: (v) => `seat ${v.seat} ${name(ActionKind, v.action)}${amount(v)}${v.timedOut ? " (out of time)" : ""}`,
  boardDealt: (v) => ["board", ...v.cards.map(card)],
  shown: (v) => [`seat ${v.seat} shows`, ...v.cards.map(card)],
  potAwarded: (v) => v.shares.map((share) => `seat ${share.seat} wins ${share.amount}`).join(", "),
  handEnded: (v) => (v.cancelled ? "hand cancelled" : "hand over"),
  satDown: (v) => `${v.playerId} sits in seat ${v.seat}`,
  stoodUp: (v) => `seat ${v.seat} stands up`,
  tableClosed: () => "the table closes",
};

/** What an action put in: a call's chips, a bet's or raise's total. */
function amount(acted) {
  if (acted.action === ActionKind.FOLD || acted.action === ActionKind.CHECK) return "";
  return ` ${acted.action === ActionKind.CALL ? acted.amount : acted.total}`;
}

function told(event) {
  const tell = TOLD[event.kind.case];
  if (!tell) return null;
  const said = tell(event.kind.value, event);
  return h("li", { "data-hand": String(event.handNumber) }, ...[].concat(said).flatMap((part, i) => (i ? [" ", part] : [part])));
}

function seatView(n, table, hand, clock) {
  const sitting = table.seats.find((seat) => seat.seat === n);
  const dealt = hand?.seats.find((seat) => seat.seat === n);
  if (!sitting?.playerId && !dealt) return h("div", { class: "seat empty", "data-seat": n }, `seat ${n}: empty`);
  const turn = hand?.turn?.seat === n;
  const mine = table.viewerSeat === n;
  const classes = ["seat", turn && "turn", mine && "mine", dealt?.folded && "folded"].filter(Boolean).join(" ");
  return h("div", { class: classes, "data-seat": n },
    h("div", { class: "who" }, `${n}. ${dealt?.playerId ?? sitting.playerId}`),
    h("div", { class: "chips" }, `stack ${dealt?.stack ?? sitting.stack}`,
      dealt?.bet ? h("span", { class: "bet" }, ` · bet ${dealt.bet}`) : null),
    dealt ? h("div", { class: "cards" }, ...dealt.downCards.map(card), ...backs(dealt.hiddenCards), ...dealt.upCards.map(card)) : null,
    h("div", { class: "note" },
      dealt?.folded ? "folded" : dealt?.allIn ? "all in" : !dealt && sitting ? name(SeatStatus, sitting.status) : "",
      sitting?.timeBank ? ` · bank ${sitting.timeBank.seconds} s` : "",
      turn ? clock : null,
      turn && hand.turn.timeBank ? " (time bank)" : null));
}

function button(label, onClick, key) {
  const made = h("button", { type: "button", "data-key": key }, label);
  made.addEventListener("click", onClick);
  return made;
}

// The keys for the common actions: f fold, c check or call, r the amount
// (Enter bets or raises it), d draw, s stand up.
const KEYS = { f: "f", c: "c", d: "d", s: "s" };

async function tableView({ tables, watch, play, replay, me }, tableId, signal) {
  let table = null;
  let cursor = "";
  const lines = [];
  const view = h("section");
  const controls = h("div", { class: "controls" });
  const log = h("ul", { class: "log" });
  const clock = h("span", { class: "clock" });
  app.replaceChildren(view, controls, log);
  // A player's recent hands, below the table, drawn again as each hand ends.
  let hands = null;
  if (me.role === Role.PLAYER) {
    const section = h("section", { class: "recent" });
    app.append(section);
    hands = recent(replay, section, signal);
  }

  // What the player does: one request at a time, each with a request id of
  // its own (the server applies none twice); a refusal is shown as said.
  let busy = false;
  let shown = "";
  const discards = new Set();
  const send = async (work) => {
    if (busy) return;
    busy = true;
    for (const each of controls.querySelectorAll("button")) each.disabled = true;
    try {
      await work();
      say("");
    } catch (error) {
      if (!turnedAway(error)) say(why(error), true);
    } finally {
      busy = false;
      shown = "";
      refresh();
    }
  };
  const act = (action) => {
    const hand = table.currentHand;
    return send(() => play.act({
      tableId, requestId: requestId(), handNumber: hand.handNumber, sequence: hand.sequence, action,
    }));
  };
  const offer = () => {
    const hand = table.currentHand;
    const mine = table.viewerSeat;
    const options = mine !== undefined && hand?.turn?.seat === mine ? hand.turn.options : undefined;
    // Rebuilt only when what they offer changes, so a field being typed in
    // stays as it is while others play.
    const occupied = table.seats.map((seat) => seat.playerId).join(",");
    const statuses = table.seats.map((seat) => seat.status).join(",");
    const key = mine === undefined
      ? `sit.${table.state}.${occupied}`
      : [hand?.handNumber, hand?.sequence, hand?.turn?.seat, mine, occupied, statuses].join(".");
    if (key === shown) return;
    shown = key;
    discards.clear();
    view.onclick = null;
    const parts = [];
    if (mine === undefined) {
      if (me.role === Role.PLAYER && table.state === TableState.OPEN) {
        const config = table.config;
        const typed = controls.querySelector(".buy-in")?.value;
        const buyIn = h("input", { type: "number", class: "buy-in", "aria-label": "buy-in",
          min: String(config.minBuyIn), max: String(config.maxBuyIn), value: typed || String(config.minBuyIn) });
        const taken = new Set(table.seats.filter((seat) => seat.playerId).map((seat) => seat.seat));
        const free = Array.from({ length: config.seats }, (_, i) => i + 1).filter((n) => !taken.has(n));
        parts.push("Buy in ", buyIn, " and sit in ", ...free.map((n) => button(`seat ${n}`,
          () => send(() => tables.sitDown({ tableId, seat: n, buyIn: BigInt(buyIn.value || 0), requestId: requestId() })))));
      }
    } else {
      if (options) {
        const amount = h("input", { type: "number", class: "amount", "aria-label": "amount",
          min: String(options.minTo), max: String(options.maxTo), value: String(options.minTo) });
        const to = () => ({ to: BigInt(amount.value || 0) });
        const sized = { [ActionKind.BET]: ["bet", "Bet"], [ActionKind.RAISE]: ["raiseBet", "Raise to"], [ActionKind.COMPLETE]: ["complete", "Complete to"] };
        let withAmount = null;
        for (const kind of options.actions) {
          if (kind === ActionKind.FOLD) parts.push(button("Fold", () => act({ case: "fold", value: {} }), "f"));
          else if (kind === ActionKind.CHECK) parts.push(button("Check", () => act({ case: "check", value: {} }), "c"));
          else if (kind === ActionKind.CALL) parts.push(button(`Call ${options.callAmount}`, () => act({ case: "call", value: {} }), "c"));
          else if (kind === ActionKind.BRING_IN) parts.push(button("Bring in", () => act({ case: "bringIn", value: {} })));
          else if (sized[kind]) {
            const [which, label] = sized[kind];
            withAmount = () => act({ case: which, value: to() });
            parts.push(button(label, withAmount, "enter"));
          }
        }
        if (withAmount) {
          amount.addEventListener("keydown", (event) => { if (event.key === "Enter") withAmount(); });
          parts.push(amount);
        }
        if (options.draw) {
          const label = () => `Draw ${discards.size} (click your cards)`;
          const drawing = button(label(), () => act({ case: "draw", value: { discards: [...discards] } }), "d");
          drawing.classList.add("draw");
          parts.push(drawing);
                view.onclick = (event) => {
            const chosen = event.target.closest(".seat.mine .card[data-card]");
            if (!chosen) return;
            const text = chosen.dataset.card;
            if (discards.has(text)) discards.delete(text);
            else if (discards.size < options.maxDiscards) discards.add(text);
            chosen.classList.toggle("chosen", discards.has(text));
            drawing.textContent = label();
          };
        }
        if (options.declare) {
          for (const [label, value] of Object.entries(Declaration)) {
            if (typeof value === "number" && value !== Declaration.UNSPECIFIED) {
              parts.push(button(`Declare ${label.toLowerCase()}`, () => act({ case: "declare", value: { declaration: value } })));
            }
          }
        }
      }
      const out = table.seats.find((seat) => seat.seat === mine)?.status === SeatStatus.SITTING_OUT;
      parts.push(out
        ? button("Sit in", () => send(() => tables.sitIn({ tableId, requestId: requestId() })))
        : button("Sit out", () => send(() => tables.sitOut({ tableId, requestId: requestId() }))));
      parts.push(button("Stand up", () => send(() => tables.standUp({ tableId, requestId: requestId() })), "s"));
    }
    controls.replaceChildren(...parts);
  };
  const pressed = (event) => {
    if (event.target.tagName === "INPUT" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "r") {
      controls.querySelector(".amount")?.focus();
      event.preventDefault();
      return;
    }
    const key = KEYS[event.key];
    const target = key && controls.querySelector(`button[data-key="${key}"]:not([disabled])`);
    if (target) {
      event.preventDefault();
      target.click();
    }
  };
  document.addEventListener("keydown", pressed);
  signal.addEventListener("abort", () => document.removeEventListener("keydown", pressed), { once: true });

  const draw = () => {
    const hand = table.currentHand;
    const bets = hand ? hand.seats.reduce((sum, seat) => sum + seat.bet, 0n) : 0n;
    const seats = Array.from({ length: table.config.seats }, (_, i) => seatView(i + 1, table, hand, clock));
    view.replaceChildren(
      h("h1", {}, `${table.displayName} · ${gameOf(table)} · ${stakes(table.config.rules)}`),
      h("div", { class: "felt", "data-hand": hand ? String(hand.handNumber) : undefined },
        h("div", { class: "middle" },
          h("div", { class: "board" }, ...(hand?.board ?? []).map(card)),
          h("div", { class: "pot" }, hand ? `pot ${hand.pot + bets}` : table.state === TableState.CLOSED ? "closed" : "waiting for a hand"),
          hand ? h("div", { class: "street" }, `hand ${hand.handNumber} · ${hand.street}`) : null),
        h("div", { class: "seats" }, seats)),
    );
    for (const text of discards) view.querySelector(`.seat.mine .card[data-card="${text}"]`)?.classList.add("chosen");
    offer();
    tick();
  };
  const tick = () => {
    const deadline = table?.currentHand?.turn?.deadline;
    if (!deadline) return;
    const left = Math.max(0, Number(deadline.seconds) * 1000 + deadline.nanos / 1e6 - Date.now());
    clock.textContent = ` ${Math.ceil(left / 1000)} s`;
  };
  const ticking = setInterval(tick, 250);
  signal.addEventListener("abort", () => clearInterval(ticking), { once: true });

  // The view is drawn from the table as GetTable gives it; an event only
  // says it changed. One call at a time, the last change always fetched.
  let fetching = false;
  let stale = false;
  const refresh = async () => {
    stale = true;
    if (fetching) return;
    fetching = true;
    try {
      while (stale && !signal.aborted) {
        stale = false;
        table = (await tables.getTable({ tableId }, { signal })).table;
        draw();
      }
    } catch (error) {
      if (!signal.aborted && !turnedAway(error)) say(why(error), true, true);
    } finally {
      fetching = false;
    }
  };
  const note = (event) => {
    const line = told(event);
    if (!line) return;
    lines.push(line);
    log.replaceChildren(...lines.slice(-LOG).reverse());
  };

  while (!signal.aborted) {
    try {
      for await (const message of watch.watchTable({ tableId, after: cursor }, { signal })) {
        cursor = message.cursor;
        const { case: kind, value } = message.item;
        if (kind === "snapshot") {
          table = value.table;
          value.handEvents.forEach(note);
          draw();
        } else {
          if (kind === "event") note(value);
          if (kind === "event" && value.kind.case === "handFinished") hands?.();
          refresh();
        }
        heard();
      }
      say("the table is closed");
      return;
    } catch (error) {
      if (signal.aborted || turnedAway(error)) return;
      say(`${why(error)}: reconnecting`, true, true);
      await sleep(RETRY, signal);
    }
  }
}

// ---- a duplicate match

async function matchView(matches, matchId, signal) {
  const view = h("section");
  app.replaceChildren(view);
  while (!signal.aborted) {
    try {
      for await (const { match } of matches.watchMatch({ matchId }, { signal })) {
        const ended = match.dealsEnded.length ? Math.min(...match.dealsEnded) : 0; // by table
        view.replaceChildren(
          h("h1", {}, `${match.displayName} · ${name(MatchState, match.state)} · ${ended} of ${match.deals} deals`),
          h("table", { class: "lobby standings" },
            h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", {}, "Table"),
              h("th", {}, "Score"), h("th", {}, "Matchpoints"))),
            h("tbody", {}, match.standings.map((standing) => h("tr", {},
              h("td", {}, String(standing.rank)), h("td", {}, standing.playerId),
              h("td", {}, `${standing.table}, seat ${standing.seat}`), h("td", {}, String(standing.score)),
              h("td", {}, String(standing.matchpoints)))))),
          h("p", {}, "Its tables: ", ...match.tableIds.flatMap((id, i) => [i ? ", " : "",
            h("a", { href: `#/table/${id}` }, `table ${i + 1}`)])),
        );
        heard();
      }
      return;
    } catch (error) {
      if (signal.aborted || turnedAway(error)) return;
      say(`${why(error)}: reconnecting`, true, true);
      await sleep(RETRY, signal);
    }
  }
}

// ---- signing in and the routes

/** Asks for a token, saying why if the last was turned away. */
function signIn(reason = "") {
  const field = h("input", { type: "password", size: "40", placeholder: "a bearer token", "aria-label": "token" });
  const form = h("form", {}, h("p", {}, "Paste a token (feltline token --role spectator), or open the link you were given."),
    field, " ", h("button", {}, "Enter"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await keep(field.value.trim());
    } catch (error) {
      if (!turnedAway(error)) say(why(error), true);
      return;
    }
    start();
  });
  app.replaceChildren(form);
  say(reason, Boolean(reason));
  window.onhashchange = start; // a new link opened in this tab
}

/** A token the server does not take (expired, altered, revoked): the page
 * forgets it and asks for another, with the server's reason. */
function turnedAway(error) {
  if (!(error instanceof ConnectError && error.code === Code.Unauthenticated)) return false;
  sessionStorage.removeItem(TOKEN);
  leaving?.abort();
  signIn(`${error.rawMessage}: open a new link, or paste a token`);
  return true;
}

let leaving = null;

async function start() {
  let given;
  try {
    given = await token();
  } catch (error) {
    if (!turnedAway(error)) signIn(why(error));
    return;
  }
  if (!given) {
    signIn();
    return;
  }
  say(""); // a new token: why the last was turned away is past
  const transport = createConnectTransport({ baseUrl: location.origin, interceptors: [bearer(given)] });
  const calls = {
    tables: createClient(TableService, transport),
    accounts: createClient(AccountService, transport),
    replay: createClient(ReplayService, transport),
    watch: createClient(WatchService, transport),
    play: createClient(PlayService, transport),
    matches: createClient(MatchService, transport),
    me: claims(given),
  };
  const route = () => {
    leaving?.abort();
    leaving = new AbortController();
    const [, kind, id] = /^#\/(table|match)\/([0-9a-f-]{36})$/.exec(location.hash) ?? [];
    if (kind === "table") tableView(calls, id, leaving.signal);
    else if (kind === "match") matchView(calls.matches, id, leaving.signal);
    else lobby(calls, leaving.signal);
  };
  window.onhashchange = route;
  route();
}

start();
