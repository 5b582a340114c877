import { spawn } from 'node:child_process';
import { espeakWordsPerMinute, parseEspeakVoices } from '../espeak-voices.js';
import { UpstreamFailure, type EngineProbe, type SpeechEngine, type SpeechRequest, type Voice } from '../ports.js';

export interface EspeakOptions {
  /** Program name (looked up on PATH) or absolute path. */
  readonly path: string;
  readonly timeoutMs: number;
  readonly maxAudioBytes: number;
  /** What the child inherits (PATH, ESPEAK_DATA_PATH): handed over from the configuration, never read from the process here. */
  readonly childEnv: ChildEnv;
}

/** The variables espeak-ng is started with; everything else of the service's environment (keys, URLs) stays out of the child. */
export interface ChildEnv {
  readonly PATH?: string;
  readonly ESPEAK_DATA_PATH?: string;
}

/** Picks the child's variables out of the configuration's environment record. */
export function espeakChildEnv(env: Readonly<Record<string, string | undefined>>): ChildEnv {
  const out: { PATH?: string; ESPEAK_DATA_PATH?: string } = {};
  const path = env['PATH'];
  const data = env['ESPEAK_DATA_PATH'];
  if (path !== undefined) out.PATH = path;
  if (data !== undefined) out.ESPEAK_DATA_PATH = data;
  return out;
}

interface ProcessResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Uint8Array;
  readonly stderr: string;
}

class ProcessFailure extends Error {
  constructor(
    readonly reason: 'not_found' | 'spawn' | 'timeout' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs a program with an argument array and no shell (so nothing in the text or voice is
 * ever interpreted), feeds `stdin`, and collects stdout up to `maxBytes`. The process is
 * killed on timeout or overflow.
 */
export function runProcess(path: string, args: readonly string[], opts: { stdin?: string; timeoutMs: number; maxBytes: number; childEnv: ChildEnv }): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = { LANG: 'C.UTF-8', ...opts.childEnv };
    const child = spawn(path, args, { shell: false, stdio: ['pipe', 'pipe', 'pipe'], env, windowsHide: true });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: ProcessFailure | undefined;
    const timer = setTimeout(() => {
      failure ??= new ProcessFailure('timeout', `${path} did not finish within ${opts.timeoutMs} ms`);
      child.kill('SIGKILL');
    }, opts.timeoutMs);

    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > opts.maxBytes) {
        failure ??= new ProcessFailure('too_large', `${path} produced more than ${opts.maxBytes} bytes`);
        child.kill('SIGKILL');
        return;
      }
      chunks.push(b);
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 4096) stderr += b.toString('utf8');
    });
    // The child may exit before reading all input (bad voice): EPIPE is expected then.
    child.stdin.on('error', () => undefined);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        e.code === 'ENOENT' || e.code === 'EACCES'
          ? new ProcessFailure('not_found', `${path} was not found or is not executable (${e.code})`)
          : new ProcessFailure('spawn', `${path} could not be started: ${e.message}`),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failure !== undefined) return reject(failure);
      resolve({ code, signal, stdout: Buffer.concat(chunks), stderr });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

function toUpstream(e: unknown): UpstreamFailure {
  if (e instanceof ProcessFailure) {
    if (e.reason === 'timeout') return new UpstreamFailure('timeout', e.message);
    if (e.reason === 'too_large') return new UpstreamFailure('too_large', e.message);
    return new UpstreamFailure('engine', e.message);
  }
  return new UpstreamFailure('engine', e instanceof Error ? e.message : String(e));
}

/** Finds out whether espeak-ng runs, and its version. */
export async function probeEspeak(path: string, childEnv: ChildEnv): Promise<EngineProbe> {
  try {
    const r = await runProcess(path, ['--version'], { timeoutMs: 5000, maxBytes: 64 * 1024, childEnv });
    const text = new TextDecoder().decode(r.stdout);
    if (r.code !== 0) return { available: false, version: null, detail: `${path} --version exited with ${r.code ?? r.signal}` };
    const v = /text-to-speech:\s*(\S+)/.exec(text)?.[1] ?? null;
    return { available: true, version: v, detail: null };
  } catch (e) {
    const detail =
      e instanceof ProcessFailure && e.reason === 'not_found'
        ? path.includes('/')
          ? `espeak-ng was not found at ESPEAK_PATH=${path}`
          : `${path} was not found on PATH`
        : e instanceof Error
          ? e.message
          : String(e);
    return { available: false, version: null, detail };
  }
}

/** The local espeak-ng engine: `espeak-ng --stdin --stdout -b 1 -v <voice> -s <wpm>`, text on stdin. */
export class EspeakEngine implements SpeechEngine {
  readonly name = 'espeak' as const;
  readonly defaultVoice = 'en-us';
  private voiceList: Promise<readonly Voice[]> | undefined;

  constructor(private readonly opts: EspeakOptions) {}

  voices(): Promise<readonly Voice[]> {
    this.voiceList ??= this.loadVoices().catch((e: unknown) => {
      // A failure is not cached: the next request tries again.
      this.voiceList = undefined;
      throw e;
    });
    return this.voiceList;
  }

  private async loadVoices(): Promise<readonly Voice[]> {
    let r: ProcessResult;
    try {
      r = await runProcess(this.opts.path, ['--voices'], { timeoutMs: this.opts.timeoutMs, maxBytes: 1024 * 1024, childEnv: this.opts.childEnv });
    } catch (e) {
      throw toUpstream(e);
    }
    if (r.code !== 0) throw new UpstreamFailure('engine', `espeak-ng --voices exited with ${r.code ?? r.signal}`);
    const voices = parseEspeakVoices(new TextDecoder().decode(r.stdout));
    if (voices.length === 0) throw new UpstreamFailure('engine', 'espeak-ng --voices listed no voices');
    return Object.freeze(voices);
  }

  async synthesize(req: SpeechRequest): Promise<Uint8Array> {
    const args = ['--stdin', '--stdout', '-b', '1', '-v', req.voice, '-s', String(espeakWordsPerMinute(req.speed))];
    let r: ProcessResult;
    try {
      r = await runProcess(this.opts.path, args, { stdin: req.text, timeoutMs: this.opts.timeoutMs, maxBytes: this.opts.maxAudioBytes, childEnv: this.opts.childEnv });
    } catch (e) {
      throw toUpstream(e);
    }
    if (r.code !== 0) {
      const why = r.stderr.trim().split('\n')[0]?.slice(0, 200) ?? '';
      throw new UpstreamFailure('engine', `espeak-ng exited with ${r.code ?? r.signal}${why === '' ? '' : `: ${why}`}`);
    }
    return r.stdout;
  }
}
