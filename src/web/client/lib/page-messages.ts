/** Messages a page gives its script in its language (data-msg-* attributes), {placeholders} filled in here. */
export function message(root: HTMLElement, name: string, vars: Record<string, string> = {}): string {
  const template = root.getAttribute(`data-msg-${name}`) ?? name;
  return template.replace(/\{([a-z_]+)\}/g, (whole, key: string) => vars[key] ?? whole);
}
