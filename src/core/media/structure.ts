/**
 * Whether an uploaded image is whole, read as it streams in: the sniffer (sniff.ts) only looks at
 * the first bytes, so eight PNG signature bytes followed by megabytes of zeros would otherwise be
 * stored as a PNG. Each format is walked as far as it can be without decoding pixels:
 *
 * - PNG: every chunk (length, a four-letter type), from IHDR to IEND;
 * - GIF: the screen descriptor, colour tables, extension and image blocks, up to the trailer;
 * - JPEG: the marker segments up to the first scan; then the file must end with an EOI marker (the
 *   scan data itself cannot be told from filler without decoding it, and a file may carry a second
 *   image after the first's EOI, as cameras' multi-picture files do);
 * - WebP: the RIFF size must be the file's.
 *
 * After the format's end, at most TRAILING_MARGIN_BYTES may follow (some writers pad a little).
 * Videos are not walked. Pure: no I/O, fed chunk by chunk, so a refusal comes as soon as the bytes
 * that prove it have arrived.
 */

import type { SniffedType } from './sniff.ts';

/** What may follow an image's last structure: a writer's padding, never a second file's worth. */
export const TRAILING_MARGIN_BYTES = 1024;

export interface StructureCheck {
  /** Feeds the next bytes of the file (from its first byte on); a problem as soon as one is seen, else null. */
  push(chunk: Buffer): string | null;
  /** Once the file has ended: a problem, or null when it is whole. */
  end(): string | null;
}

/** The check for the sniffed type, or null for a type that is not walked (video). */
export function structureCheck(type: SniffedType): StructureCheck | null {
  switch (type.mimeType) {
    case 'image/png':
      return new Walk(walkPng, 'the file ends before its IEND chunk', 'the IEND chunk');
    case 'image/gif':
      return new Walk(walkGif, 'the file ends before its trailer', 'the GIF trailer');
    case 'image/jpeg':
      return new JpegCheck();
    case 'image/webp':
      return new WebpCheck();
    default:
      return null;
  }
}

class StructureProblem extends Error {}

/** What a walk asks for next: the next `read` bytes handed to it, or the next `skip` bytes passed over. */
type Step = { read: number } | { skip: number };
type Walker = Generator<Step, void, Buffer>;

const fourCc = (bytes: Buffer, start: number) => bytes.toString('latin1', start, start + 4);

/** The next byte of the file. */
function* nextByte(): Generator<Step, number, Buffer> {
  return (yield { read: 1 })[0]!;
}

const hex = (byte: number) => `0x${byte.toString(16).padStart(2, '0').toUpperCase()}`;

/** PNG (ISO/IEC 15948): the signature, then chunks of length, type, data and CRC; IHDR first, IEND last. */
function* walkPng(): Walker {
  yield { skip: 8 };
  for (let index = 0; ; index++) {
    const header = yield { read: 8 };
    const length = header.readUInt32BE(0);
    const type = fourCc(header, 4);
    if (!/^[A-Za-z]{4}$/.test(type)) {
      throw new StructureProblem(`chunk ${index + 1} has no valid type (a PNG chunk type is four letters)`);
    }
    if (length > 0x7fffffff) throw new StructureProblem(`the ${type} chunk declares an impossible length`);
    if (index === 0 && (type !== 'IHDR' || length !== 13)) {
      throw new StructureProblem('it does not start with an IHDR chunk');
    }
    yield { skip: length + 4 };
    if (type === 'IEND') return;
  }
}

/** GIF87a/89a: the screen descriptor and its colour table, then extension and image blocks until the trailer. */
function* walkGif(): Walker {
  const screen = yield { read: 13 };
  const colourTable = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
  yield { skip: colourTable(screen[10]!) };
  for (;;) {
    const introducer = yield* nextByte();
    if (introducer === 0x3b) return;
    if (introducer === 0x21) {
      yield { skip: 1 }; // the extension's label
    } else if (introducer === 0x2c) {
      const descriptor = yield { read: 9 };
      yield { skip: colourTable(descriptor[8]!) + 1 }; // the local colour table and the LZW code size
    } else {
      throw new StructureProblem(`byte ${hex(introducer)} stands where a GIF block or the trailer should`);
    }
    // Data sub-blocks: a size byte and that many bytes, until a size of 0.
    for (;;) {
      const size = yield* nextByte();
      if (size === 0) break;
      yield { skip: size };
    }
  }
}

/** Runs a walk over the bytes as they come, then counts what follows its end against the margin. */
class Walk implements StructureCheck {
  private readonly walker: Walker;
  private step: Step | null;
  private collected: Buffer[] = [];
  private collectedLength = 0;
  private trailing = 0;
  private problem: string | null = null;

  constructor(
    walk: () => Walker,
    private readonly truncated: string,
    /** What the format's end is called, for the margin's message; null when what follows is not counted. */
    private readonly endName: string | null,
  ) {
    this.walker = walk();
    const first = this.walker.next();
    this.step = first.done ? null : first.value;
  }

  push(chunk: Buffer): string | null {
    if (this.problem) return this.problem;
    try {
      this.consume(chunk);
    } catch (error) {
      if (!(error instanceof StructureProblem)) throw error;
      this.problem = error.message;
    }
    return this.problem;
  }

  end(): string | null {
    if (this.problem) return this.problem;
    return this.step === null ? null : this.truncated;
  }

  private consume(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      const step = this.step;
      if (step === null) {
        if (this.endName === null) return;
        this.trailing += chunk.length - offset;
        if (this.trailing > TRAILING_MARGIN_BYTES) {
          throw new StructureProblem(`more than ${TRAILING_MARGIN_BYTES} bytes follow ${this.endName}`);
        }
        return;
      }
      if ('skip' in step) {
        const taken = Math.min(step.skip, chunk.length - offset);
        step.skip -= taken;
        offset += taken;
        if (step.skip === 0) this.advance(Buffer.alloc(0));
        continue;
      }
      const taken = Math.min(step.read - this.collectedLength, chunk.length - offset);
      this.collected.push(chunk.subarray(offset, offset + taken));
      this.collectedLength += taken;
      offset += taken;
      if (this.collectedLength === step.read) {
        const bytes = Buffer.concat(this.collected, this.collectedLength);
        this.collected = [];
        this.collectedLength = 0;
        this.advance(bytes);
      }
    }
  }

  /** Hands the walk what it asked for; a step of nothing (an empty chunk, no colour table) is taken at once. */
  private advance(bytes: Buffer): void {
    let next = this.walker.next(bytes);
    while (!next.done && ('skip' in next.value ? next.value.skip : next.value.read) === 0) {
      next = this.walker.next(Buffer.alloc(0));
    }
    this.step = next.done ? null : { ...next.value };
  }
}

/** JPEG markers that stand alone, without a length: TEM and RST0 to RST7 (SOI and EOI are handled apart). */
const STANDALONE = new Set([0x01, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7]);

/**
 * JPEG (ITU T.81): after SOI, every marker segment up to the first SOS must chain (0xFF, a marker,
 * a length); the rest is scan data, and the file must end with EOI within the margin.
 */
class JpegCheck implements StructureCheck {
  private readonly header: Walk;
  private headerDone = false;
  /** The last bytes seen: where the EOI must be. */
  private tail: Buffer = Buffer.alloc(0);

  constructor() {
    // Whatever follows the header is scan data: not counted against the margin.
    this.header = new Walk(walkJpegHeader, 'the file ends before its first scan', null);
  }

  push(chunk: Buffer): string | null {
    if (!this.headerDone) {
      const problem = this.header.push(chunk);
      if (problem) return problem;
      if (this.header.end() === null) this.headerDone = true;
    }
    const keep = TRAILING_MARGIN_BYTES + 2;
    this.tail = chunk.length >= keep ? chunk.subarray(-keep) : Buffer.concat([this.tail, chunk]).subarray(-keep);
    return null;
  }

  end(): string | null {
    if (!this.headerDone) return this.header.end();
    if (this.tail.lastIndexOf(Buffer.from([0xff, 0xd9])) < 0) {
      return `it does not end with an EOI marker (0xFFD9) within its last ${TRAILING_MARGIN_BYTES} bytes`;
    }
    return null;
  }
}

function* walkJpegHeader(): Walker {
  yield { skip: 2 }; // SOI, checked by the sniffer
  for (;;) {
    if ((yield* nextByte()) !== 0xff) {
      throw new StructureProblem('its marker segments do not chain (a byte other than 0xFF where a marker should be)');
    }
    let marker = yield* nextByte();
    // Any number of 0xFF fill bytes may stand before a marker.
    while (marker === 0xff) marker = yield* nextByte();
    if (STANDALONE.has(marker)) continue;
    if (marker === 0xd8 || marker === 0xd9 || marker === 0x00) {
      throw new StructureProblem(`marker 0xFF${hex(marker).slice(2)} stands before the first scan`);
    }
    const length = (yield { read: 2 }).readUInt16BE(0);
    if (length < 2) throw new StructureProblem('a marker segment declares a length under 2');
    yield { skip: length - 2 };
    if (marker === 0xda) return; // SOS: scan data follows
  }
}

/** WebP: a RIFF container whose size field (bytes 4 to 8, little-endian) is the file's size less 8. */
class WebpCheck implements StructureCheck {
  private size = 0;
  private head: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): string | null {
    if (this.head.length < 8) this.head = Buffer.concat([this.head, chunk.subarray(0, 8 - this.head.length)]);
    this.size += chunk.length;
    const declared = this.declared();
    if (declared !== null && this.size > declared + TRAILING_MARGIN_BYTES) {
      return `more than ${TRAILING_MARGIN_BYTES} bytes follow the ${declared} bytes its RIFF header declares`;
    }
    return null;
  }

  end(): string | null {
    const declared = this.declared();
    if (declared === null || this.size < declared) {
      return `the file is shorter than the ${declared ?? 'RIFF'} bytes its RIFF header declares`;
    }
    return this.size > declared + TRAILING_MARGIN_BYTES
      ? `more than ${TRAILING_MARGIN_BYTES} bytes follow the ${declared} bytes its RIFF header declares`
      : null;
  }

  /** The whole file's size as the RIFF header gives it (the field counts from byte 8; chunks pad to even). */
  private declared(): number | null {
    if (this.head.length < 8) return null;
    const riff = this.head.readUInt32LE(4);
    return 8 + riff + (riff % 2);
  }
}
