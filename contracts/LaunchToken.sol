// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

/// @title LaunchToken
/// @notice The launched ERC-20: 18 decimals, a fixed supply minted once to the factory, and metadata
/// (name, symbol, ERC-7572 contract URI, extra key/value pairs) that only the factory may change.
contract LaunchToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public immutable totalSupply;
    address public immutable factory;
    string public contractURI;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(string => string) private _extraMetadata;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event NameUpdated(string name);
    event SymbolUpdated(string symbol);
    /// ERC-7572.
    event ContractURIUpdated();
    event ExtraMetadataUpdated(string key, string value);

    error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);
    error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error ERC20InvalidReceiver(address receiver);
    error NotFactory();

    modifier onlyFactory() {
        if (msg.sender != factory) revert NotFactory();
        _;
    }

    constructor(string memory name_, string memory symbol_, uint256 supply, address factory_) {
        name = name_;
        symbol = symbol_;
        totalSupply = supply;
        factory = factory_;
        balanceOf[factory_] = supply;
        emit Transfer(address(0), factory_, supply);
    }

    function extraMetadata(string calldata key) external view returns (string memory) {
        return _extraMetadata[key];
    }

    function setName(string calldata value) external onlyFactory {
        name = value;
        emit NameUpdated(value);
    }

    function setSymbol(string calldata value) external onlyFactory {
        symbol = value;
        emit SymbolUpdated(value);
    }

    function setContractURI(string calldata value) external onlyFactory {
        contractURI = value;
        emit ContractURIUpdated();
    }

    function setExtraMetadata(string calldata key, string calldata value) external onlyFactory {
        _extraMetadata[key] = value;
        emit ExtraMetadataUpdated(key, value);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert ERC20InsufficientAllowance(msg.sender, allowed, amount);
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert ERC20InvalidReceiver(to);
        uint256 balance = balanceOf[from];
        if (balance < amount) revert ERC20InsufficientBalance(from, balance, amount);
        unchecked {
            balanceOf[from] = balance - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }
}
