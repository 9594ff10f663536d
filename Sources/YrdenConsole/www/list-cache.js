// One server's lists as the console last read them, revalidated by their ETag before each use: an app page's
// calls check the tool they name against its server's list, and a whole catalog is read again only when it
// changed (the gateway answers 304 to a current tag without building or sending a byte of it).

const MAX_ENTRIES = 32;

export class ListCache {
  /**
   * `read(path, etag)` → `{status, etag, body}`: a GET of `path` sending `If-None-Match: etag` when there is
   * one; status 304 means the copy held is current.
   */
  constructor(read) {
    this.read = read;
    this.entries = new Map(); // path → {etag, body}, least recently used first
  }

  /** The current body of `path`, read whole only when the gateway says the copy held is not current. */
  async get(path) {
    const held = this.entries.get(path);
    const answer = await this.read(path, held?.etag);
    this.entries.delete(path);
    if (answer.status === 304 && held) {
      this.entries.set(path, held);
      return held.body;
    }
    if (answer.etag) {
      this.entries.set(path, { etag: answer.etag, body: answer.body });
      for (const oldest of this.entries.keys()) {
        if (this.entries.size <= MAX_ENTRIES) break;
        this.entries.delete(oldest);
      }
    }
    return answer.body;
  }
}
