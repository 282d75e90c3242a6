#!/usr/bin/env node
// A taash arena bot in Node.js. It is built only from the .proto files in ../../proto
// (package taash.arena.v1), with @grpc/grpc-js and @grpc/proto-loader. See README.md.
//
//   node bot.js --name NAME --token TOKEN [--server 127.0.0.1:50051] [--games N] [--tls] [--ca FILE]
//
// Strategy (change `decide` to write your own): follow the arena's legal actions; in the
// auction pass when allowed, else make the lowest bid; declare what may be declared; in
// play, win a trick with the cheapest card that takes it when possible, else throw the
// cheapest card. Anything else: the first legal action.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_DIR = process.env.TAASH_PROTO_DIR || path.resolve(__dirname, '..', '..', 'proto');

const packageDefinition = protoLoader.loadSync('taash/arena/v1/arena.proto', {
  includeDirs: [PROTO_DIR],
  keepCase: true, // field names exactly as in the .proto: request_id, legal_actions, ...
  longs: String,
  enums: String, // enum values as their names: 'ILLEGAL_ACTION'
  defaults: true,
  oneofs: true, // msg.msg names the field set in a oneof: 'decision', 'verdict', ...
});
const v1 = grpc.loadPackageDefinition(packageDefinition).taash.arena.v1;

// ---------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------
function parseArgs(argv) {
  const opts = {
    name: process.env.TAASH_BOT || 'node-bot',
    token: process.env.TAASH_TOKEN || '',
    server: process.env.TAASH_SERVER || '127.0.0.1:50051',
    games: 0,
    tls: false,
    ca: '',
  };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const value = argv[i + 1];
    if (key === '--help' || key === '-h') {
      console.log('usage: node bot.js --name NAME --token TOKEN [--server HOST:PORT] [--games N] ' +
                  '[--tls] [--ca FILE]\n' +
                  '  --tls      connect with TLS (an arena served with --tls-cert), its certificate checked\n' +
                  '             against the system\'s roots (or --ca)\n' +
                  '  --ca FILE  a PEM file of the certificates to trust: the arena\'s own for a self-signed\n' +
                  '             one (implies --tls)');
      process.exit(0);
    }
    if (key === '--tls') {
      opts.tls = true;
      continue;
    }
    if (key === '--ca' && value !== undefined) {
      opts.ca = value;
      opts.tls = true;
      i++;
      continue;
    }
    if (!['--name', '--token', '--server', '--games'].includes(key) || value === undefined) {
      console.error(`node-bot: error: unexpected argument ${JSON.stringify(key)} (see --help)`);
      process.exit(2);
    }
    opts[key.slice(2)] = key === '--games' ? Number(value) : value;
    i++;
  }
  if (!opts.token) {
    console.error('node-bot: error: no token: pass --token TOKEN or set TAASH_TOKEN ' +
                  '(issue one with `taash arena token NAME`)');
    process.exit(2);
  }
  if (!Number.isInteger(opts.games) || opts.games < 0) {
    console.error('node-bot: error: --games must be a whole number');
    process.exit(2);
  }
  return opts;
}

// ---------------------------------------------------------------------------------------
// The bot's brain: decide(observation, legalActions, game) -> one of legalActions
// ---------------------------------------------------------------------------------------
// observation: the JSON object of DecisionRequest.observation_json (hand, history, trick,
// trump, ...); game: the GameStart of this game with variant_data parsed (deck.ranks high
// to low, deck.points, players, partnership).
function decide(observation, legalActions, game) {
  if (legalActions.includes('pass')) return 'pass';
  const bids = legalActions.filter((a) => a.startsWith('bid '));
  if (bids.length) return bids[0];
  const declare = legalActions.find((a) => a.startsWith('declare '));
  if (declare) return declare;
  const plays = legalActions.filter((a) => a.startsWith('play ')).map((a) => a.slice(5));
  if (!plays.length) return legalActions[0];

  const deck = (game && game.variant_data && game.variant_data.deck) || {};
  const ranks = (deck.ranks || ['J', '9', 'A', 'T', 'K', 'Q', '8', '7']).map(String);
  const points = deck.points || {};
  const strength = (card) => ranks.length - ranks.indexOf(card.slice(0, -1));
  // a card's own points, else its suit's, else its rank's (docs/authoring.md, "The deck")
  const value = (card) => points[card] ?? points[card.slice(-1)] ?? points[card.slice(0, -1)] ?? 0;
  const cheapest = (cards) => cards.slice().sort((a, b) => value(a) - value(b) || strength(a) - strength(b))[0];

  const trick = observation.trick || [];
  if (!trick.length) return 'play ' + cheapest(plays);
  const trump = observation.trump_exposed ? observation.trump : null;
  const led = trick[0][1].slice(-1);
  const beats = (c, w) => {
    const ct = trump && c.slice(-1) === trump;
    const wt = trump && w.slice(-1) === trump;
    if (ct !== wt) return ct;
    if (ct) return strength(c) > strength(w);
    return c.slice(-1) === led && (w.slice(-1) !== led || strength(c) > strength(w));
  };
  let best = trick[0][1];
  for (const [, card] of trick.slice(1)) if (beats(card, best)) best = card;
  const winners = plays.filter((c) => beats(c, best));
  return 'play ' + cheapest(winners.length ? winners : plays);
}

// ---------------------------------------------------------------------------------------
// The connection: one bidirectional stream (Arena.Play), reconnect with backoff
// ---------------------------------------------------------------------------------------
// TLS when asked (--tls, --ca FILE): the arena's certificate is checked against the
// system's roots, or against the certificates of the CA file (a self-signed arena's own)
function credentials(opts) {
  if (!opts.tls) return grpc.credentials.createInsecure();
  let roots = null;
  if (opts.ca) {
    try {
      roots = fs.readFileSync(opts.ca);
    } catch (err) {
      console.error(`node-bot: error: --ca ${opts.ca}: cannot read it: ${err.message}`);
      process.exit(2);
    }
  }
  return grpc.credentials.createSsl(roots);
}

function run(opts) {
  const client = new v1.Arena(opts.server, credentials(opts));
  const games = new Map(); // game_id -> GameStart with variant_data parsed
  const requests = new Map(); // request_id -> DecisionRequest, for retries after ILLEGAL_ACTION
  let gamesDone = 0;
  let delay = 100;

  function connect() {
    const metadata = new grpc.Metadata();
    metadata.add('authorization', 'Bearer ' + opts.token);
    metadata.add('taash-bot', opts.name);
    const call = client.Play(metadata);
    let finished = false;
    call.write({ hello: { client: 'taash-node-bot/0.1' } });

    const answer = (request, legal) => {
      const game = games.get(request.game_id);
      let action;
      try {
        action = decide(JSON.parse(request.observation_json), legal, game);
      } catch (err) {
        call.write({ error: { request_id: request.request_id, message: String(err).slice(0, 200) } });
        return;
      }
      call.write({ answer: { request_id: request.request_id, action } });
    };

    call.on('data', (msg) => {
      switch (msg.msg) {
        case 'welcome':
          delay = 100;
          console.error(`node-bot: connected as ${msg.welcome.bot} (${msg.welcome.protocol})`);
          break;
        case 'game_start': {
          const g = msg.game_start;
          g.variant_data = JSON.parse(g.variant_json || '{}');
          games.set(g.game_id, g);
          break;
        }
        case 'decision':
          requests.set(msg.decision.request_id, msg.decision);
          answer(msg.decision, msg.decision.legal_actions);
          break;
        case 'verdict': {
          const v = msg.verdict;
          console.error(`node-bot: verdict ${v.kind} ${v.request_id}: ${v.message}`);
          if (v.kind === 'ILLEGAL_ACTION' && requests.has(v.request_id)) {
            answer(requests.get(v.request_id), v.legal_actions);
          }
          break;
        }
        case 'event':
          if (msg.event.event === 'game_ended') {
            const id = msg.event.game_id;
            games.delete(id);
            for (const rid of requests.keys()) if (rid.startsWith(id + '.')) requests.delete(rid);
            gamesDone++;
            if (opts.games && gamesDone >= opts.games) {
              finished = true;
              call.end(); // a clean goodbye
              client.close();
            }
          }
          break;
        default:
          break;
      }
    });

    const retry = (why) => {
      if (finished) return;
      finished = true;
      console.error(`node-bot: ${why}; reconnecting in ${delay} ms`);
      setTimeout(connect, delay);
      delay = Math.min(5000, delay * 2);
    };
    call.on('error', (err) => {
      if (err.code === grpc.status.UNAUTHENTICATED || err.code === grpc.status.PERMISSION_DENIED) {
        console.error(`node-bot: error: the arena refused the bot: ${err.details}`);
        process.exit(1);
      }
      retry(`connection lost (${err.details || err.message})`);
    });
    call.on('end', () => retry('the arena closed the stream'));
  }

  connect();
}

if (require.main === module) {
  run(parseArgs(process.argv.slice(2)));
}

module.exports = { decide };
