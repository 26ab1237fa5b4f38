// A small XML 1.0 well-formedness checker and tree builder for the junit tests (no new deps):
// prolog, balanced tags, quoted attributes, no duplicate attributes, only the five predefined
// entities and character references, no raw `<` or `&` in text, only XML 1.0 characters.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;
const CHAR_OK = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: string): string {
  if (/<|&(?!(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/.test(raw)) {
    throw new Error(`bad markup or entity in ${where}: ${JSON.stringify(raw.slice(0, 60))}`);
  }
  return raw.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (_, e: string) =>
    e.startsWith('#x') ? String.fromCodePoint(parseInt(e.slice(2), 16))
      : e.startsWith('#') ? String.fromCodePoint(parseInt(e.slice(1), 10))
        : ENTITIES[e]!,
  );
}

export function parseXml(xml: string): XmlElement {
  if (!CHAR_OK.test(xml)) throw new Error('character not allowed in XML 1.0');
  let i = 0;
  const rest = () => xml.slice(i);
  const ws = () => {
    while (i < xml.length && /\s/.test(xml[i]!)) i++;
  };
  const decl = /^<\?xml[^?]*\?>/.exec(rest());
  if (decl) i += decl[0].length;
  ws();

  function element(): XmlElement {
    if (xml[i] !== '<') throw new Error(`expected < at ${i}`);
    i++;
    const name = NAME.exec(rest())?.[0];
    if (!name) throw new Error(`bad element name at ${i}`);
    i += name.length;
    const el: XmlElement = { name, attrs: {}, children: [], text: '' };
    for (;;) {
      const before = i;
      ws();
      if (xml.startsWith('/>', i)) {
        i += 2;
        return el;
      }
      if (xml[i] === '>') {
        i++;
        break;
      }
      if (i === before) throw new Error(`expected whitespace before attribute at ${i}`);
      const an = NAME.exec(rest())?.[0];
      if (!an) throw new Error(`bad attribute name at ${i}`);
      i += an.length;
      if (xml[i] !== '=') throw new Error(`expected = at ${i}`);
      i++;
      const q = xml[i];
      if (q !== '"' && q !== "'") throw new Error(`unquoted attribute at ${i}`);
      const end = xml.indexOf(q, i + 1);
      if (end < 0) throw new Error('unterminated attribute');
      if (an in el.attrs) throw new Error(`duplicate attribute ${an}`);
      el.attrs[an] = decode(xml.slice(i + 1, end), `attribute ${an}`);
      i = end + 1;
    }
    for (;;) {
      const lt = xml.indexOf('<', i);
      if (lt < 0) throw new Error(`unclosed <${name}>`);
      el.text += decode(xml.slice(i, lt), `text of <${name}>`);
      i = lt;
      if (xml.startsWith('</', i)) {
        i += 2;
        const close = NAME.exec(rest())?.[0];
        if (close !== name) throw new Error(`</${close}> closes <${name}>`);
        i += close.length;
        ws();
        if (xml[i] !== '>') throw new Error(`expected > at ${i}`);
        i++;
        return el;
      }
      el.children.push(element());
    }
  }

  const root = element();
  ws();
  if (i !== xml.length) throw new Error(`content after the root element at ${i}`);
  return root;
}

export function findAll(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    if (e.name === name) out.push(e);
    e.children.forEach(walk);
  };
  walk(el);
  return out;
}
