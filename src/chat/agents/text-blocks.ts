/**
 * Keeps consecutive answers readable once concatenated: a new text block (or
 * text after a tool call) starts with a blank line. Normalizers route every
 * text fragment through one of these per run.
 */
export class TextBlocks {
  private wrote = false;
  private broken = false;

  /** A complete block of text (one content block, one message item). */
  block(content: string): string {
    const text = this.wrote ? `\n\n${content}` : content;
    this.wrote ||= content.length > 0;
    this.broken = false;
    return text;
  }

  /** A streamed fragment; only the first fragment after a break is separated. */
  delta(content: string): string {
    const text = this.wrote && this.broken ? `\n\n${content}` : content;
    this.wrote ||= content.length > 0;
    this.broken = false;
    return text;
  }

  /** Something other than text (a tool call) happened. */
  break(): void {
    this.broken = true;
  }
}
