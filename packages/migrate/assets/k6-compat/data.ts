/** k6/data's SharedArray: built once per engine thread (k6 builds it once per test). */
export class SharedArray<T> extends Array<T> {
  constructor(_name: string, make: () => T[]) {
    super();
    this.push(...make());
  }
  static get [Symbol.species]() {
    return Array;
  }
}
