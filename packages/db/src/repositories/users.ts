import type { User } from "../generated/sqlite/client.js";
import type { DbClient } from "./db-client.js";

export type UserRow = User;
export type NewUser = Pick<User, "name" | "role" | "passwordHash" | "createdBy"> &
  Partial<Pick<User, "oidcSubject">>;

export class UserRepository {
  constructor(private readonly client: DbClient) {}

  create(user: NewUser): Promise<UserRow> {
    return this.client.user.create({ data: user });
  }

  get(name: string): Promise<UserRow | null> {
    return this.client.user.findUnique({ where: { name } });
  }

  /** The user an identity provider's subject signed in as before. */
  getBySubject(oidcSubject: string): Promise<UserRow | null> {
    return this.client.user.findUnique({ where: { oidcSubject } });
  }

  list(): Promise<UserRow[]> {
    return this.client.user.findMany({ orderBy: { name: "asc" } });
  }

  count(): Promise<number> {
    return this.client.user.count();
  }

  async update(name: string, data: Partial<Pick<User, "role" | "passwordHash">>): Promise<void> {
    await this.client.user.update({ where: { name }, data });
  }

  /** Removes the user and its personal tokens (cascade); false when there was none. */
  async delete(name: string): Promise<boolean> {
    const { count } = await this.client.user.deleteMany({ where: { name } });
    return count > 0;
  }
}
