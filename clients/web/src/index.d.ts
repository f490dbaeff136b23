// Declarations of index.js: the generated services and messages carry their own.
import type { Interceptor } from "@connectrpc/connect";

export { Code, ConnectError, createClient } from "@connectrpc/connect";
export { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
export * from "./gen/feltline/v1/accounts_pb.js";
export * from "./gen/feltline/v1/auth_pb.js";
export * from "./gen/feltline/v1/common_pb.js";
export * from "./gen/feltline/v1/errors_pb.js";
export * from "./gen/feltline/v1/events_pb.js";
export * from "./gen/feltline/v1/ledger_pb.js";
export * from "./gen/feltline/v1/matches_pb.js";
export * from "./gen/feltline/v1/play_pb.js";
export * from "./gen/feltline/v1/replay_pb.js";
export * from "./gen/feltline/v1/tables_pb.js";
export * from "./gen/feltline/v1/watch_pb.js";

/** An interceptor that sends the bearer token on every call, as the server requires. */
export declare function bearer(token: string): Interceptor;
