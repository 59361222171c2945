import { randomBytes } from "node:crypto";

/** An order a signed-in user placed. */
export interface Order {
  id: number;
  item: string;
  qty: number;
  at: string;
}

interface Session {
  user: string;
  orders: Order[];
  cart: Array<{ sku: string; qty: number }>;
}

/** Sessions the shop keeps at most (the oldest is forgotten first): a long test cannot fill memory. */
const MAX_SESSIONS = 100_000;
/** Orders (and cart lines) one session keeps at most. */
const MAX_PER_SESSION = 100;

/** The shop's memory: who is signed in, their orders and carts. Nothing is written to disk. */
export class ShopState {
  private readonly sessions = new Map<string, Session>();
  private nextOrder = 1;
  /** Orders placed since the start, for `GET /stats`. */
  ordersPlaced = 0;

  signIn(user: string): string {
    const token = randomBytes(16).toString("hex");
    this.sessions.set(token, { user, orders: [], cart: [] });
    if (this.sessions.size > MAX_SESSIONS) {
      const [oldest] = this.sessions.keys();
      this.sessions.delete(oldest);
    }
    return token;
  }

  session(token: string | undefined): Session | undefined {
    return token === undefined ? undefined : this.sessions.get(token);
  }

  placeOrder(session: Session, item: string, qty: number): Order {
    const order = { id: this.nextOrder++, item, qty, at: new Date().toISOString() };
    session.orders.push(order);
    if (session.orders.length > MAX_PER_SESSION) session.orders.shift();
    this.ordersPlaced++;
    return order;
  }

  addToCart(session: Session, sku: string, qty: number): number {
    session.cart.push({ sku, qty });
    if (session.cart.length > MAX_PER_SESSION) session.cart.shift();
    return session.cart.length;
  }

  get signedIn(): number {
    return this.sessions.size;
  }
}
