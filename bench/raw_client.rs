//! The floor of client CPU: a sysbench-shaped client with no protocol library.
//!
//! The client-efficiency targets compare abtest's CPU per transaction with sysbench's.
//! Most of either tool's CPU is the kernel's loopback TCP work and the sleep and wake-up
//! of each blocking read, which every closed-loop client pays. This program measures
//! that floor: each thread opens one connection, prepares the statements of sysbench's
//! oltp_point_select or oltp_read_only (default options, table `sbtest1`), then does
//! nothing but write each COM_STMT_EXECUTE and read the reply's packets to the end of the
//! result: one send and one receive per statement, as abtest. No row is decoded, no
//! latency recorded, nothing allocated on the loop. Its threads run under SCHED_BATCH,
//! as abtest's do by default.
//!
//! It prints the transactions, the rate, and the CPU per transaction over the measured
//! period (after every thread has connected), in sysbench's words so that the bench
//! scripts parse it with the same helpers:
//!
//!     cargo run --release --example raw_client -- \
//!         PORT USER PASSWORD DATABASE point_select|read_only THREADS SECONDS TABLE_SIZE
//!
//! The user must authenticate with mysql_native_password; the table is `sbtest1` with
//! ids 1..=TABLE_SIZE.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use abtest::thread_policy::ClientSched;
use abtest::thread_policy::apply_to_current_thread;
use mysql_common::scramble::scramble_native;

const RANGE_SIZE: u64 = 100;
const POINT_SELECTS: usize = 10;
const POINT_SELECT: &str = "SELECT c FROM sbtest1 WHERE id=?";
/// oltp_read_only's range statements, each on `id BETWEEN ? AND ?`.
const RANGES: [&str; 4] = [
    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?",
    "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
    "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
];
const COM_STMT_PREPARE: u8 = 0x16;
const COM_STMT_EXECUTE: u8 = 0x17;
/// CLIENT_LONG_PASSWORD | CONNECT_WITH_DB | PROTOCOL_41 | TRANSACTIONS |
/// SECURE_CONNECTION | PLUGIN_AUTH.
const CAPABILITIES: u32 = 0x1 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x8_0000;
const UTF8MB4: u8 = 45;

/// Which sysbench workload to mimic.
#[derive(Clone, Copy, PartialEq)]
enum Workload {
    PointSelect,
    ReadOnly,
}

/// What to run.
struct Args {
    port: u16,
    user: String,
    password: String,
    database: String,
    workload: Workload,
    threads: usize,
    seconds: u64,
    table_size: u64,
}

/// One connection: its socket and a read buffer of whole packets.
struct Connection {
    socket: TcpStream,
    buffer: Vec<u8>,
    start: usize,
    end: usize,
}

impl Connection {
    fn open(args: &Args) -> std::io::Result<Connection> {
        let socket = TcpStream::connect(("127.0.0.1", args.port))?;
        socket.set_nodelay(true)?;
        let mut connection = Connection {
            socket,
            buffer: vec![0; 64 << 10],
            start: 0,
            end: 0,
        };
        let greeting = connection.packet()?.to_vec();
        let response = handshake_response(args, &nonce(&greeting));
        connection.write(1, &response)?;
        connection.expect_ok("authentication")?;
        Ok(connection)
    }

    /// The next packet's payload.
    fn packet(&mut self) -> std::io::Result<&[u8]> {
        loop {
            if let Some(length) = self.buffered_packet_length() {
                let payload = self.start + 4..self.start + 4 + length;
                self.start = payload.end;
                return Ok(&self.buffer[payload]);
            }
            self.fill()?;
        }
    }

    fn buffered_packet_length(&self) -> Option<usize> {
        let header = self.buffer.get(self.start..self.start + 4)?;
        let length =
            usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
        (self.end - self.start >= 4 + length).then_some(length)
    }

    fn fill(&mut self) -> std::io::Result<()> {
        self.buffer.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buffer.len() {
            self.buffer.resize(self.buffer.len() * 2, 0);
        }
        match self.socket.read(&mut self.buffer[self.end..])? {
            0 => Err(std::io::ErrorKind::UnexpectedEof.into()),
            read => {
                self.end += read;
                Ok(())
            }
        }
    }

    fn write(&mut self, sequence: u8, payload: &[u8]) -> std::io::Result<()> {
        let mut packet = (payload.len() as u32).to_le_bytes();
        packet[3] = sequence;
        self.socket.write_all(&[&packet[..], payload].concat())
    }

    fn expect_ok(&mut self, what: &str) -> std::io::Result<()> {
        let reply = self.packet()?;
        if reply.first() == Some(&0) {
            return Ok(());
        }
        let message = String::from_utf8_lossy(reply.get(9..).unwrap_or_default()).into_owned();
        Err(std::io::Error::other(format!("{what} failed: {message}")))
    }

    /// Prepares `sql`; returns its statement id.
    fn prepare(&mut self, sql: &str) -> std::io::Result<[u8; 4]> {
        self.write(0, &[&[COM_STMT_PREPARE], sql.as_bytes()].concat())?;
        let reply = self.packet()?.to_vec();
        if reply.first() != Some(&0) {
            return Err(std::io::Error::other(format!("prepare of {sql} failed")));
        }
        // Parameter definitions, then columns; each list, when not empty, ends with EOF.
        for count in [&reply[7..9], &reply[5..7]] {
            let count = usize::from(u16::from_le_bytes([count[0], count[1]]));
            for _ in 0..count + usize::from(count > 0) {
                self.packet()?;
            }
        }
        Ok([reply[1], reply[2], reply[3], reply[4]])
    }

    /// Executes `statement` with BIGINT `params` and reads its whole reply.
    fn execute(
        &mut self,
        packet: &mut Vec<u8>,
        statement: [u8; 4],
        params: &[u64],
    ) -> std::io::Result<()> {
        encode_execute(packet, statement, params);
        self.socket.write_all(packet)?;
        self.drain_result()
    }

    /// Reads one reply: an OK packet, or column count, columns, EOF, rows, EOF.
    fn drain_result(&mut self) -> std::io::Result<()> {
        if self.packet()?.first() == Some(&0) {
            return Ok(());
        }
        let mut eofs = 0;
        while eofs < 2 {
            let payload = self.packet()?;
            match payload.first() {
                Some(0xff) => return Err(std::io::Error::other("the statement failed")),
                Some(0xfe) if payload.len() < 9 => eofs += 1,
                _ => {}
            }
        }
        Ok(())
    }
}

/// The 20-byte scramble from the server's greeting.
fn nonce(greeting: &[u8]) -> Vec<u8> {
    let version_end = 1 + greeting[1..].iter().position(|&b| b == 0).unwrap_or(0);
    let first = version_end + 1 + 4;
    let second = first + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10;
    [&greeting[first..first + 8], &greeting[second..second + 12]].concat()
}

fn handshake_response(args: &Args, nonce: &[u8]) -> Vec<u8> {
    let scramble =
        scramble_native(nonce, args.password.as_bytes()).map_or_else(Vec::new, Vec::from);
    let mut response = Vec::new();
    response.extend_from_slice(&CAPABILITIES.to_le_bytes());
    response.extend_from_slice(&(16u32 << 20).to_le_bytes());
    response.push(UTF8MB4);
    response.extend_from_slice(&[0; 23]);
    response.extend_from_slice(args.user.as_bytes());
    response.push(0);
    response.push(scramble.len() as u8);
    response.extend_from_slice(&scramble);
    response.extend_from_slice(args.database.as_bytes());
    response.push(0);
    response.extend_from_slice(b"mysql_native_password\0");
    response
}

/// Encodes a COM_STMT_EXECUTE of `statement` with BIGINT `params`, header included.
fn encode_execute(packet: &mut Vec<u8>, statement: [u8; 4], params: &[u64]) {
    packet.clear();
    packet.extend_from_slice(&[0, 0, 0, 0, COM_STMT_EXECUTE]);
    packet.extend_from_slice(&statement);
    // No cursor, iteration count 1.
    packet.extend_from_slice(&[0, 1, 0, 0, 0]);
    if !params.is_empty() {
        // The null bitmap, then "types follow" and one BIGINT type per parameter.
        packet.resize(packet.len() + params.len().div_ceil(8), 0);
        packet.push(1);
        for _ in params {
            packet.extend_from_slice(&[8, 0]);
        }
        for value in params {
            packet.extend_from_slice(&value.to_le_bytes());
        }
    }
    let length = (packet.len() - 4) as u32;
    packet[..3].copy_from_slice(&length.to_le_bytes()[..3]);
}

/// A thread's connection with its prepared statements.
struct Session {
    connection: Connection,
    point_select: [u8; 4],
    ranges: Vec<[u8; 4]>,
    begin: [u8; 4],
    commit: [u8; 4],
}

impl Session {
    fn open(args: &Args) -> std::io::Result<Session> {
        let mut connection = Connection::open(args)?;
        let point_select = connection.prepare(POINT_SELECT)?;
        let ranges = match args.workload {
            Workload::PointSelect => Vec::new(),
            Workload::ReadOnly => RANGES
                .iter()
                .map(|sql| connection.prepare(sql))
                .collect::<Result<_, _>>()?,
        };
        let begin = connection.prepare("BEGIN")?;
        let commit = connection.prepare("COMMIT")?;
        Ok(Session {
            connection,
            point_select,
            ranges,
            begin,
            commit,
        })
    }

    /// One oltp_point_select event: a single point select, no transaction.
    fn point_select(&mut self, packet: &mut Vec<u8>, random: &mut Random) -> std::io::Result<()> {
        let id = random.id();
        self.connection.execute(packet, self.point_select, &[id])
    }

    /// One oltp_read_only transaction: BEGIN, ten point selects, four ranges, COMMIT.
    fn read_only(&mut self, packet: &mut Vec<u8>, random: &mut Random) -> std::io::Result<()> {
        self.connection.execute(packet, self.begin, &[])?;
        for _ in 0..POINT_SELECTS {
            self.point_select(packet, random)?;
        }
        for &range in &self.ranges {
            let start = random.id();
            self.connection
                .execute(packet, range, &[start, start + RANGE_SIZE - 1])?;
        }
        self.connection.execute(packet, self.commit, &[])
    }
}

/// xorshift64: ids uniform in 1..=table_size at no cost worth measuring.
struct Random {
    state: u64,
    table_size: u64,
}

impl Random {
    fn id(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state % self.table_size + 1
    }
}

/// Runs events until the deadline; returns the transactions.
fn run_thread(args: &Args, seed: u64, ready: &Barrier) -> std::io::Result<u64> {
    apply_to_current_thread(ClientSched::Batch)?;
    let opened = Session::open(args);
    // Every thread arrives, connected or not, so that a failure cannot hang the others.
    ready.wait();
    let mut session = opened?;
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let mut random = Random {
        state: seed | 1,
        table_size: args.table_size,
    };
    let mut packet = Vec::with_capacity(64);
    let mut transactions = 0;
    while Instant::now() < deadline {
        match args.workload {
            Workload::PointSelect => session.point_select(&mut packet, &mut random)?,
            Workload::ReadOnly => session.read_only(&mut packet, &mut random)?,
        }
        transactions += 1;
    }
    Ok(transactions)
}

fn parse_args() -> Args {
    let values: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: raw_client PORT USER PASSWORD DATABASE point_select|read_only THREADS SECONDS TABLE_SIZE";
    let [
        port,
        user,
        password,
        database,
        workload,
        threads,
        seconds,
        table_size,
    ] = values.as_slice()
    else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let workload = match workload.as_str() {
        "point_select" => Workload::PointSelect,
        "read_only" => Workload::ReadOnly,
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    Args {
        port: port.parse().expect("PORT is a number"),
        user: user.clone(),
        password: password.clone(),
        database: database.clone(),
        workload,
        threads: threads.parse().expect("THREADS is a number"),
        seconds: seconds.parse().expect("SECONDS is a number"),
        table_size: table_size.parse().expect("TABLE_SIZE is a number"),
    }
}

fn main() -> std::io::Result<()> {
    let args = Arc::new(parse_args());
    let ready = Arc::new(Barrier::new(args.threads + 1));
    let workers: Vec<_> = (0..args.threads as u64)
        .map(|thread| {
            let (args, ready) = (Arc::clone(&args), Arc::clone(&ready));
            let seed = 0x9e37_79b9_7f4a_7c15 ^ thread;
            std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || run_thread(&args, seed, &ready))
        })
        .collect::<std::io::Result<_>>()?;
    ready.wait();
    let before = abtest::cpu::process_cpu(std::process::id());
    let mut transactions = 0;
    for worker in workers {
        transactions += worker.join().expect("a client thread panicked")?;
    }
    let spent = abtest::cpu::spent(before, abtest::cpu::process_cpu(std::process::id()));
    let per_transaction = abtest::cpu::us_per_transaction(spent, transactions).unwrap_or(f64::NAN);
    let rate = transactions as f64 / args.seconds as f64;
    println!("    transactions:                        {transactions} ({rate:.2} per sec.)");
    println!("measured cpu us per transaction: {per_transaction:.2}");
    Ok(())
}
